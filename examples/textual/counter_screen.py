"""The counter of seed 000, drawn from the `counter` feature's state: the value, the
four buttons (increase, decrease, reset, show), and the alert the state's `alert`
holds, in a modal whose OK sends `alertDismissed`."""
from __future__ import annotations

from typing import Any, ClassVar

import fusion_examples
from feature_screen import Alert, AlertDialog, FeatureScreen, Options
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical
from textual.widgets import Button, Footer, Header, Label

CounterState = fusion_examples.CounterState
CounterInput = fusion_examples.CounterInput


#: The buttons' (and keys') inputs, by button id.
BUTTONS: dict[str, CounterInput] = {"increase": "increase", "decrease": "decrease", "reset": "reset", "show": "show"}


class CounterAlert(Alert):
    """The state's `alert`, until OK (or Escape) sends `alertDismissed`."""

    kind = "alert"
    cancel_button = "ok"

    def __init__(self, message: str, screen: CounterScreen) -> None:
        super().__init__()
        self.message = message
        self.counter = screen

    def compose(self) -> ComposeResult:
        yield AlertDialog(self.message, [("ok", "OK", self.dismiss_alert)])

    def dismiss_alert(self) -> None:
        self.counter.send("alertDismissed")


class CounterScreen(FeatureScreen[CounterState, CounterInput]):
    """The value and its four buttons."""

    TITLE = "Counter"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "send('increase')", "Increase"),
        Binding("down,j", "send('decrease')", "Decrease"),
        Binding("r", "send('reset')", "Reset"),
        Binding("s", "send('show')", "Show"),
    ]

    DEFAULT_CSS = """
    CounterScreen #body { align: center middle; height: 1fr; }
    CounterScreen #value { width: auto; text-style: bold; padding: 1 4; border: round $primary; }
    CounterScreen #reset-note { width: auto; color: $text-muted; height: 1; }
    CounterScreen #buttons { width: auto; height: auto; margin-top: 1; }
    CounterScreen #buttons Button { margin: 0 1; }
    """

    def __init__(self, library: fusion_examples.Library, options: Options) -> None:
        super().__init__(library.create("counter", clock=options.clock), options)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="body"):
            with Center():
                yield Label("", id="value")
            with Center():
                yield Label("", id="reset-note")
            with Center(), Horizontal(id="buttons"):
                yield Button("−", id="decrease")
                yield Button("+", id="increase", variant="primary")
                yield Button("Reset", id="reset")
                yield Button("Show", id="show")
        yield Footer()

    async def draw(self, state: CounterState) -> None:
        self.query_one("#value", Label).update(str(state["value"]))
        self.query_one("#reset-note", Label).update("reset" if state["isReset"] else "")
        alert = self._alert()
        if alert is not None and (state["alert"] is None or alert.message != state["alert"]):
            self.app.pop_screen()
            alert = None
        if alert is None and state["alert"] is not None:
            self.app.push_screen(CounterAlert(state["alert"], self))

    def _alert(self) -> CounterAlert | None:
        stack = self.app.screen_stack
        above = stack[stack.index(self) + 1:] if self in stack else []
        return next((screen for screen in above if isinstance(screen, CounterAlert)), None)

    @on(Button.Pressed, "#buttons Button")
    def pressed(self, event: Button.Pressed) -> None:
        self.action_send(event.button.id or "")

    def action_send(self, name: str) -> None:
        if name in BUTTONS:
            self.send(BUTTONS[name])

    def report(self) -> dict[str, Any]:
        """{"screen": "counter", "value": the number shown, "reset": bool, "alert": its text or None}."""
        alert = self._alert()
        return {"screen": "counter", "value": str(self.query_one("#value", Label).content),
                "reset": bool(str(self.query_one("#reset-note", Label).content)),
                "alert": alert.dialog().shown_message() if alert is not None and alert.is_mounted else None}
