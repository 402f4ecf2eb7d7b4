"""`python3 -m fusionkit.scenario [LIB.so] FILE|DIR...`: runs scenarios as `fusion test` does."""
import sys

from . import main

sys.exit(main())
