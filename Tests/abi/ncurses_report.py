"""Reads what the ncurses Wi-Fi screen (examples/c/wifi_screen.c) shows, from a terminal
capture (`tmux capture-pane -p`), into the shape every renderer's report has:

    {"screen": "list" | "connect" | "detail",
     "selected": the selected network's name, or None,
     "alert": "incorrect-password" | "forget" | None,
     "joining": bool}

A test comparing the ncurses, Textual and web front ends step by step compares these.
Only what is drawn counts: the report never looks at the feature's state."""
from __future__ import annotations

import re

# The selected network's row: " > ✓ Blob Jr's WiFi        ▂▄·  🔒", or in ASCII (a locale
# that is not UTF-8) " > * Blob Jr's WiFi        [##.]  [L]" (the name ends where two
# spaces or the signal bars begin).
_SELECTED_ROW = re.compile(r"^ [> ] [✓*] (.+?)(?: {2,}|[▂▄▆·]|\[[#.]{3}\]|$)")
# The connect sheet's title, Join "<name>"; the detail sheet's, Network "<name>".
_CONNECT_TITLE = re.compile(r'Join ".*"')
_DETAIL_TITLE = re.compile(r'Network ".*"')
# The forget confirmation's title, Forget "<name>"?
_FORGET_ALERT = re.compile(r'Forget Wi-Fi Network [“"].*[”"]\?')  # the feature's title, in UTF-8 or ASCII


def report(screen_text: str) -> dict[str, object]:
    """The screen (which sheet is up), the selected network, the alert and whether a
    join is under way, as the captured text shows them."""
    lines = screen_text.splitlines()
    if any(_CONNECT_TITLE.search(line) for line in lines):
        screen = "connect"
    elif any(_DETAIL_TITLE.search(line) for line in lines):
        screen = "detail"
    else:
        screen = "list"

    selected = None
    for line in lines:
        match = _SELECTED_ROW.match(line)
        if match:
            selected = match.group(1).strip()
            break

    if "Incorrect Password" in screen_text:
        alert = "incorrect-password"
    elif any(_FORGET_ALERT.search(line) for line in lines):
        alert = "forget"
    else:
        alert = None

    joining = "Joining…" in screen_text or "Joining..." in screen_text
    return {"screen": screen, "selected": selected, "alert": alert, "joining": joining}
