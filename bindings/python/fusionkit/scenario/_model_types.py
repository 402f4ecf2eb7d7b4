"""The one type the scenario modules share."""
from __future__ import annotations

from typing import Any

#: Any value JSON can carry, as the json module reads it.
JSON = Any
