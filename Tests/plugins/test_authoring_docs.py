"""Every public declaration of FusionKit's authoring API (Feature, Effect, Environment,
clocks, random source, host requests) and runtime (Store, errors) carries a DocC
comment: what a plugin author reads in their editor."""
from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

DOCUMENTED = [ROOT / "Sources/FusionKit/Authoring", ROOT / "Sources/FusionKit/Runtime"]
DECLARATION = re.compile(r"(@\w+(\([^)]*\))?\s+)*(public|open)\s")


def undocumented(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.swift")):
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            text = line.strip()
            if not DECLARATION.match(text) or text.startswith("public import"):
                continue
            above = number - 1
            while above >= 0 and lines[above].strip().startswith("@"):
                above -= 1
            if above < 0 or not lines[above].strip().startswith("///"):
                found.append(f"{path.relative_to(ROOT)}:{number + 1}: {text[:90]}")
    return found


def test_every_public_declaration_of_the_authoring_api_is_documented() -> None:
    missing = [item for folder in DOCUMENTED for item in undocumented(folder)]
    assert missing == [], "public without a /// comment:\n" + "\n".join(missing)
