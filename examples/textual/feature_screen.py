"""What every screen of the Textual front end shares: the options of the command line,
the base class that ties a Textual screen to a feature instance, and the alert dialog.

A feature screen only renders the state and sends inputs. State changes are reported
by `instance.subscribe` on whichever thread made them (the Textual thread that sent
an input, or a library thread running an effect); the callback only posts a
`StateChanged` message, which is thread-safe and never blocks, and the screen redraws
from `instance.state` when Textual handles it, on its own thread.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar

import fusionkit
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Label

#: The parts of the profile that `--fail` can name.
PARTS = ("pet", "family", "preschool", "babyProfile")


@dataclass(frozen=True)
class Options:
    """The command line's options, as the screens take them."""
    #: Create the instance on a manual clock, advanced by a key (deterministic; tests).
    manual_clock: bool = False
    #: Profile: seconds the host takes to answer a fetch (the Nth part after N delays).
    delay: float = 0.6
    #: Profile: the part whose fetch fails, once.
    fail: str | None = None
    #: Wi-Fi: let networks come and go while the screen is open.
    live_scan: bool = False

    @property
    def clock(self) -> Literal["manual"] | None:
        return "manual" if self.manual_clock else None


#: The key that moves a manual clock one second (the app's action, hidden on the system
#: clock). The app binds it; modal screens bind it again, since a modal screen keeps the
#: app's bindings from its keys.
ADVANCE_CLOCK = Binding("plus,right_square_bracket", "app.advance_clock", "+1 s", key_display="+")


class StateChanged(Message):
    """The instance changed: redraw from its state (posted from any thread)."""

    def __init__(self, version: int) -> None:
        super().__init__()
        self.version = version


StateT = TypeVar("StateT", bound=Mapping[str, Any])
InputT = TypeVar("InputT", bound=str | Mapping[str, Any])


class FeatureScreen(Screen[None], Generic[StateT, InputT]):
    """A screen drawing one feature instance: subscribes on mount, redraws on each
    change, closes the instance on unmount. Subclasses implement `draw` and `report`
    and may send inputs in `appeared` and `disappeared`."""

    def __init__(self, instance: fusionkit.Instance[StateT, InputT], options: Options) -> None:
        super().__init__()
        self.instance = instance
        self.options = options
        self._subscription: fusionkit.Subscription | None = None
        self._drawn_version = -1

    # -- lifetime --------------------------------------------------------------------

    def on_mount(self) -> None:
        self._subscription = self.instance.subscribe(self._instance_changed)
        self.post_message(StateChanged(self.instance.version))  # the first drawing
        self.appeared()

    def on_unmount(self) -> None:
        if self.instance.closed:
            return
        self.disappeared()
        if self._subscription is not None:
            self._subscription.unsubscribe()
        self.instance.close()

    def appeared(self) -> None:
        """Called once mounted and subscribed: send the feature's "appeared" input."""

    def disappeared(self) -> None:
        """Called on unmount, before the instance closes."""

    # -- changes ---------------------------------------------------------------------

    def _instance_changed(self, version: int) -> None:
        # Any thread; keep it short. post_message is thread-safe and does not block.
        self.post_message(StateChanged(version))

    async def on_state_changed(self, message: StateChanged) -> None:
        if self.instance.closed:
            return
        state, version = self.instance.snapshot()
        if version == self._drawn_version:
            return  # drawn already (several changes, one drawing)
        self._drawn_version = version
        await self.draw(state)

    async def draw(self, state: StateT) -> None:
        """Makes the widgets show `state`."""
        raise NotImplementedError

    # -- what the person does --------------------------------------------------------

    def send(self, input: InputT) -> None:
        self.instance.send(input)

    def advance_clock(self, seconds: float) -> None:
        """Moves the manual clock (with --manual-clock; the app's `+` key)."""
        self.instance.advance_clock(seconds)

    def report(self) -> dict[str, Any]:
        """What the screen shows, read from its widgets (not from the state)."""
        raise NotImplementedError


class AlertDialog(Vertical):
    """An alert's box: a message, an optional detail line, and buttons, each running
    one action (sending one input). It never closes itself: the screen that shows it
    takes it away once the state says the alert is gone; that screen (an Alert) also
    says which button is focused and which is drawn as destructive."""

    DEFAULT_CSS = """
    AlertDialog {
        width: 56;
        height: auto;
        border: thick $error 80%;
        background: $surface;
        padding: 1 2;
    }
    AlertDialog #message {
        width: 100%;
        content-align: center middle;
        text-style: bold;
    }
    AlertDialog #detail {
        width: 100%;
        margin-top: 1;
        color: $text-muted;
    }
    AlertDialog #buttons {
        height: auto;
        margin-top: 1;
        align-horizontal: right;
    }
    AlertDialog Button {
        margin-left: 2;
    }
    """

    def __init__(self, message: str, buttons: list[tuple[str, str, Callable[[], None]]], *, detail: str = "") -> None:
        """`buttons`: (id, label, action), left to right."""
        super().__init__(id="dialog")
        self.message = message
        self.detail = detail
        self.buttons = buttons

    def compose(self) -> ComposeResult:
        yield Label(self.message, id="message")
        if self.detail:
            yield Label(self.detail, id="detail")
        with Horizontal(id="buttons"):
            for button_id, label, _ in self.buttons:
                yield Button(label, id=button_id)

    def button(self, button_id: str) -> Button:
        return self.query_one(f"#buttons #{button_id}", Button)

    def shown_message(self) -> str:
        return str(self.query_one("#message", Label).content)

    def press(self, button_id: str) -> None:
        for known, _, action in self.buttons:
            if known == button_id:
                action()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.press(event.button.id or "")


class Alert(ModalScreen[None]):
    """A modal screen holding an AlertDialog; Escape presses its `cancel` button, which
    is the safe choice: focused, so that Enter never does the destructive thing by
    default. Its own footer shows its own keys (not those of the screen under it)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Dismiss"), ADVANCE_CLOCK]
    # Focus is given in on_mount, to the cancel button, not to the first one.
    AUTO_FOCUS = None

    DEFAULT_CSS = """
    Alert {
        align: center middle;
    }
    """

    #: What report() calls this alert.
    kind: ClassVar[str] = "alert"
    #: The id of the button Escape presses: the safe choice, focused and primary.
    cancel_button: ClassVar[str] = "ok"
    #: The id of the button that destroys something (drawn as an error), if any.
    destructive_button: ClassVar[str | None] = None

    def on_mount(self) -> None:
        dialog = self.dialog()
        for button in dialog.query(Button):
            if button.id == self.destructive_button:
                button.variant = "error"
            elif button.id == self.cancel_button:
                button.variant = "primary"
        dialog.button(self.cancel_button).focus()
        # A modal screen shows the screen under it, footer included: this one's covers it.
        self.mount(Footer())

    def dialog(self) -> AlertDialog:
        return self.query_one(AlertDialog)

    def action_cancel(self) -> None:
        self.dialog().press(self.cancel_button)
