"""The profile store of seed 004, drawn from the `profile` feature's state, with this
program as the host that answers the four fetches.

The feature asks the host for the pet, the family, the preschool and the baby profile
(`requests="host"`). The answers come from here, the Nth part `--delay` × N seconds
after it was asked for (on the manual clock with `--manual-clock`, so that the `+`
key brings them), and the part named by `--fail` fails, once. Each part appears as its
answer lands; an error shows with Retry (`retryTapped`) and Dismiss (`errorDismissed`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import fusion_examples
import fusionkit
from feature_screen import PARTS, FeatureScreen, Options
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Button, Footer, Header, Label, Static

ProfileState = fusion_examples.ProfileStoreState
ProfileInput = fusion_examples.ProfileStoreInput

#: What the host answers each request kind with (as examples/python/profile.py does).
ANSWERS: dict[str, fusionkit.JSON] = {
    "fetchPet": {"name": "Dubu", "species": "cat", "age": 4},
    "fetchFamily": {"members": [{"name": "Yuna", "relation": "mother"}, {"name": "Joon", "relation": "father"}]},
    "fetchPreschool": {"name": "Maple", "className": "Owls", "teacher": "Mr. Seo"},
    "fetchBabyProfile": {"name": "Haneul", "birthDate": "2024-02-29", "heightCm": 84, "weightKg": 11.2},
}
#: The part each request kind fetches, in the order the answers come.
PART_OF_KIND = {"fetchPet": "pet", "fetchFamily": "family", "fetchPreschool": "preschool",
                "fetchBabyProfile": "babyProfile"}
#: The parts' titles on screen.
TITLES = {"pet": "Pet", "family": "Family", "preschool": "Preschool", "babyProfile": "Baby"}
NOT_LOADED = "—"
LOADING = "loading…"


class HostEventArrived(Message):
    """A host request or cancellation (posted from the library's thread)."""

    def __init__(self, event: fusionkit.HostEvent) -> None:
        super().__init__()
        self.event = event


@dataclass
class Waiting:
    """A request this host has not answered yet."""
    id: int
    kind: str
    due: float
    timer: Timer | None = None


def describe(part: str, state: ProfileState) -> str | None:
    """The text of one part, or None while the state has none."""
    if part == "pet" and (pet := state["pet"]) is not None:
        return f"{pet['name']}\n{pet['species']}, {pet['age']} years old"
    if part == "family" and (family := state["family"]) is not None:
        return "\n".join(f"{member['name']} ({member['relation']})" for member in family["members"])
    if part == "preschool" and (school := state["school"]) is not None:
        return f"{school['name']}\nclass {school['className']}, {school['teacher']}"
    if part == "babyProfile" and (baby := state["babyProfile"]) is not None:
        return f"{baby['name']}\nborn {baby['birthDate']}\n{baby['heightCm']:g} cm, {baby['weightKg']:g} kg"
    return None


class ProfileScreen(FeatureScreen[ProfileState, ProfileInput]):
    """Four parts, a load button, the loading line and the error with Retry."""

    TITLE = "Profile"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("l", "load", "Load")]

    DEFAULT_CSS = """
    ProfileScreen #toolbar { height: 3; padding: 0 1; }
    ProfileScreen #status { width: 1fr; height: 3; content-align: left middle; padding-left: 2; color: $warning; }
    ProfileScreen #error { height: auto; margin: 0 1; padding: 0 1; border: round $error; }
    ProfileScreen #error-message { color: $error; text-style: bold; width: 1fr; }
    ProfileScreen #error-buttons { height: auto; }
    ProfileScreen #error-buttons Button { margin-right: 2; }
    ProfileScreen #parts { grid-size: 2; grid-gutter: 0 1; padding: 0 1; height: 1fr; }
    ProfileScreen .part { border: round $primary; padding: 0 1; height: 1fr; }
    ProfileScreen .part.pending { border: round $warning; }
    ProfileScreen .part.empty Static { color: $text-muted; }
    """

    def __init__(self, library: fusion_examples.Library, options: Options) -> None:
        super().__init__(library.create("profile", requests="host", clock=options.clock), options)
        self._fail_once = {options.fail} if options.fail else set()
        self._waiting: dict[int, Waiting] = {}
        self._host_time = 0.0  # with --manual-clock: the seconds the `+` key has moved

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="toolbar"):
            yield Button("Load profiles", id="load", variant="primary")
            yield Label("", id="status")
        with Vertical(id="error"):
            yield Label("", id="error-message")
            with Horizontal(id="error-buttons"):
                yield Button("Retry", id="retry", variant="primary")
                yield Button("Dismiss", id="dismiss")
        with Grid(id="parts"):
            for part in PARTS:
                with Vertical(id=f"{part}-card", classes="part") as card:
                    card.border_title = TITLES[part]
                    yield Static(NOT_LOADED, id=f"{part}-body")
        yield Footer()

    def appeared(self) -> None:
        self.instance.set_request_handler(self._host_event)
        self.send("loadAllProfiles")

    # -- drawing ---------------------------------------------------------------------

    async def draw(self, state: ProfileState) -> None:
        pending: list[str] = list(state["pending"])
        status = self.query_one("#status", Label)
        status.update("Loading " + ", ".join(TITLES[part].lower() for part in pending) + "…"
                      if state["isLoading"] else "")
        error = state["error"]
        self.query_one("#error", Vertical).display = error is not None
        self.query_one("#error-message", Label).update(error or "")
        for part in PARTS:
            text = describe(part, state)
            card = self.query_one(f"#{part}-card", Vertical)
            card.set_class(part in pending, "pending")
            card.set_class(text is None, "empty")
            shown = text if text is not None else LOADING if part in pending else NOT_LOADED
            self.query_one(f"#{part}-body", Static).update(shown)

    # -- the host --------------------------------------------------------------------

    def _host_event(self, event: fusionkit.HostEvent) -> None:
        # A library thread (or the one that sent the input): hand it to Textual's.
        self.post_message(HostEventArrived(event))

    def on_host_event_arrived(self, message: HostEventArrived) -> None:
        event = message.event
        if event.is_cancel:
            waiting = self._waiting.pop(event.id, None)
            if waiting is not None and waiting.timer is not None:
                waiting.timer.stop()
            return
        if not event.is_request or event.kind not in PART_OF_KIND:
            return
        delay = self.options.delay * (PARTS.index(PART_OF_KIND[event.kind]) + 1)
        waiting = Waiting(event.id, event.kind, self._host_time + delay)
        self._waiting[event.id] = waiting
        if not self.options.manual_clock:
            waiting.timer = self.set_timer(delay, partial(self._answer, event.id))

    def _answer(self, request_id: int) -> None:
        waiting = self._waiting.pop(request_id, None)
        if waiting is None or self.instance.closed:
            return
        part = PART_OF_KIND[waiting.kind]
        try:
            if part in self._fail_once:
                self._fail_once.discard(part)
                self.instance.fail_request(request_id, "the server is down")
            else:
                self.instance.respond(request_id, ANSWERS[waiting.kind])
        except fusionkit.FusionError:
            pass  # cancelled meanwhile (another part failed)

    def advance_clock(self, seconds: float) -> None:
        super().advance_clock(seconds)
        self._host_time += seconds
        for waiting in sorted(self._waiting.values(), key=lambda waiting: waiting.due):
            if waiting.due <= self._host_time + 1e-9:
                self._answer(waiting.id)

    # -- what the person does --------------------------------------------------------

    @on(Button.Pressed, "#load")
    def action_load(self) -> None:
        self.send("loadAllProfiles")

    @on(Button.Pressed, "#retry")
    def retry(self) -> None:
        self.send("retryTapped")

    @on(Button.Pressed, "#dismiss")
    def dismiss_error(self) -> None:
        self.send("errorDismissed")

    # -- what it shows ---------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """{"screen": "profile", "loading": bool, "parts": {part: text or None},
        "pending": [parts shown loading], "error": the message shown or None}."""
        parts: dict[str, str | None] = {}
        pending: list[str] = []
        for part in PARTS:
            text = str(self.query_one(f"#{part}-body", Static).content)
            parts[part] = None if text in (NOT_LOADED, LOADING) else text
            if text == LOADING:
                pending.append(part)
        error_box = self.query_one("#error", Vertical)
        return {"screen": "profile", "loading": bool(str(self.query_one("#status", Label).content)),
                "parts": parts, "pending": pending,
                "error": str(self.query_one("#error-message", Label).content) if error_box.display else None}
