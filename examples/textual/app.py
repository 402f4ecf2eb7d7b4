#!/usr/bin/env python3
"""A terminal front end for the example features, in Textual: it only draws each
feature's state and sends the person's inputs; the feature (the Swift library, through
`fusionkit`) decides everything.

    python3 examples/textual/app.py                    # Wi-Fi settings (seed 003)
    python3 examples/textual/app.py counter            # the counter (seed 000)
    python3 examples/textual/app.py profile --fail family --delay 1
    python3 examples/textual/app.py wifi --manual-clock    # time moves only with `+`

Options: --manual-clock (the instance's clock moves one second per `+` or `]`), --delay
SECONDS (profile: how long the host takes per part, 0.6 by default), --fail PART
(profile: pet, family, preschool or babyProfile fails once), --live-scan (Wi-Fi:
networks come and go). Ctrl+Q quits.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[2]
try:
    import fusionkit  # noqa: F401 (found first, for fusion_examples)
except ImportError:  # not installed: use the checkout's copy
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    import fusionkit  # noqa: F401 (found first, for fusion_examples)
# The library's types, written by `fusion types --lang python` into examples/python.
sys.path.insert(0, str(ROOT / "examples" / "python"))

import fusion_examples  # noqa: E402
from counter_screen import CounterScreen  # noqa: E402
from feature_screen import ADVANCE_CLOCK, PARTS, FeatureScreen, Options  # noqa: E402
from profile_screen import ProfileScreen  # noqa: E402
from textual.app import App  # noqa: E402
from textual.binding import BindingType  # noqa: E402
from wifi_screen import WiFiScreen  # noqa: E402

FEATURES = ("wifi", "counter", "profile")


class FusionApp(App[None]):
    """Shows one feature's screen; `+` advances a manual clock by one second."""

    TITLE = "FusionKit"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [ADVANCE_CLOCK]

    def __init__(self, feature: str = "wifi", options: Options | None = None,
                 library: fusion_examples.Library | None = None) -> None:
        super().__init__()
        self.options = options or Options()
        library = library or fusion_examples.load()
        screen: FeatureScreen[Any, Any]
        if feature == "wifi":
            screen = WiFiScreen(library, self.options)
        elif feature == "counter":
            screen = CounterScreen(library, self.options)
        elif feature == "profile":
            screen = ProfileScreen(library, self.options)
        else:
            raise ValueError(f"unknown feature {feature!r}: one of {', '.join(FEATURES)}")
        self.feature_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.feature_screen)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "advance_clock":
            return self.options.manual_clock  # hidden (and off) on the system clock
        return True

    def action_advance_clock(self) -> None:
        self.feature_screen.advance_clock(1.0)


def parse(argv: list[str] | None = None) -> tuple[str, Options]:
    parser = argparse.ArgumentParser(description="FusionKit's example features in the terminal (Textual).")
    parser.add_argument("feature", nargs="?", default="wifi", choices=FEATURES)
    parser.add_argument("--manual-clock", action="store_true",
                        help="the clock moves only with the + key, one second at a time")
    parser.add_argument("--delay", type=float, default=0.6, metavar="SECONDS",
                        help="profile: how long the host takes per part (default 0.6)")
    parser.add_argument("--fail", choices=PARTS, metavar="PART",
                        help="profile: the part whose fetch fails once (" + ", ".join(PARTS) + ")")
    parser.add_argument("--live-scan", action="store_true", help="wifi: networks come and go while open")
    args = parser.parse_args(argv)
    if args.delay < 0:
        parser.error("--delay must not be negative")
    return args.feature, Options(manual_clock=args.manual_clock, delay=args.delay, fail=args.fail,
                                 live_scan=args.live_scan)


def main(argv: list[str] | None = None) -> int:
    feature, options = parse(argv)
    FusionApp(feature, options).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
