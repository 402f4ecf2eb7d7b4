"""The Wi-Fi settings screen of seed 003, drawn from the `wifi` feature's state.

The list: the on/off switch, the selected network apart ("My Network"), the others
below under the state's `otherNetworksHeading`, each with its signal bars (`signalBars`
lit of the state's `signalBarsMaximum`) and a lock when secured; the detail sheet says
the network's `securityLabel`. Join and the password field take input only while the
state's `isJoinEnabled` and `isPasswordEditable` say so.
Enter (or a click) on a row sends `networkTapped`, `i` (or the row's "(i)") sends
`infoButtonTapped`, `w` (or a click on the switch) sends `wifiToggled`. Over it, as the state's `destination` says: the connect sheet
(password, Join, joining) or the detail sheet (Forget This Network), and their alerts.
Sheets and alerts are modal screens pushed and popped to match the state; Escape on a
sheet sends `destinationDismissed`, and the feature decides what that cancels.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import fusion_examples
from feature_screen import ADVANCE_CLOCK, Alert, AlertDialog, FeatureScreen, Options
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Header, Input, Label, ListItem, ListView, Static, Switch

WiFiState = fusion_examples.WiFiSettingsState
WiFiInput = fusion_examples.WiFiSettingsInput
Network = fusion_examples.Network
Send = Callable[[WiFiInput], None]


BAR_GLYPHS = "▂▄▆"


def signal_bars(bars: int, maximum: int) -> Text:
    """`maximum` bars (the state's `signalBarsMaximum`), the first `bars` of them lit (the
    network's `signalBars`); the glyphs grow along the scale."""
    text = Text()
    for index in range(maximum):
        glyph = BAR_GLYPHS[index * len(BAR_GLYPHS) // maximum]
        text.append(glyph, style="bold" if index < bars else "grey35")
    return text


class SectionHeader(ListItem):
    """A heading inside the list: not selectable."""

    def __init__(self, title: str) -> None:
        super().__init__(Label(title), disabled=True, classes="section")


class InfoButton(Label):
    """The "(i)" at the end of a row: a click sends `infoButtonTapped`, not `networkTapped`."""

    class Pressed(Message):
        def __init__(self, network_id: str) -> None:
            super().__init__()
            self.network_id = network_id

    def __init__(self, network_id: str) -> None:
        super().__init__("(i)", classes="info")
        self.network_id = network_id

    def on_click(self, event: Click) -> None:
        event.stop()  # not a tap on the row
        self.post_message(self.Pressed(self.network_id))


class NetworkRow(ListItem):
    """One network: check mark when selected, name, lock, signal bars, info."""

    def __init__(self, network: Network, bars_maximum: int, *, selected: bool) -> None:
        self.network_id = network["id"]
        super().__init__(
            Horizontal(
                Label("✓" if selected else " ", classes="check"),
                Label(network["name"], classes="name"),
                Label("🔒" if network["isSecured"] else "", classes="lock"),
                Label(signal_bars(network["signalBars"], bars_maximum), classes="bars"),
                InfoButton(network["id"]),
            ),
            classes="network selected" if selected else "network",
        )

    def shown_name(self) -> str:
        return str(self.query_one(".name", Label).content)


def _row_key(network: Network) -> tuple[Any, ...]:
    return network["id"], network["name"], network["isSecured"], network["signalBars"]


class WiFiLayer(ModalScreen[None]):
    """A sheet or an alert over the list, kept in step with the state by WiFiScreen."""

    #: What report() calls it.
    kind: ClassVar[str] = ""

    DEFAULT_CSS = """
    WiFiLayer { align: center middle; }
    """

    def __init__(self, key: tuple[str, str], send: Send, state: WiFiState) -> None:
        super().__init__()
        self.key = key
        self.send = send
        self.state = state

    def show(self, state: WiFiState) -> None:
        self.state = state
        if self.is_mounted:
            self.update()

    def on_mount(self) -> None:
        self.update()

    def update(self) -> None:
        """Makes the widgets show `self.state`."""


class Sheet(WiFiLayer):
    """A sheet over the list (the connect or the detail sheet): Escape sends
    `destinationDismissed`, and the feature decides what that closes or cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_sheet", "Close"), ADVANCE_CLOCK]

    DEFAULT_CSS = """
    Sheet { align: center middle; }
    Sheet > #sheet {
        width: 60; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    Sheet #title { text-style: bold; margin-bottom: 1; }
    """

    def action_dismiss_sheet(self) -> None:
        self.send("destinationDismissed")


class ConnectSheet(Sheet):
    """The connect sheet: a password, Join, and "Joining…" while the feature joins."""

    kind = "connect"

    DEFAULT_CSS = """
    ConnectSheet #joining { color: $warning; text-style: bold; margin-top: 1; }
    ConnectSheet #buttons { height: auto; margin-top: 1; align-horizontal: right; }
    ConnectSheet Button { margin-left: 2; }
    """

    def __init__(self, key: tuple[str, str], send: Send, state: WiFiState) -> None:
        super().__init__(key, send, state)
        self._sent_password: str | None = None
        self._was_editable = True

    def _connect(self) -> fusion_examples.ConnectToNetworkState | None:
        destination = self.state["destination"]
        return destination["connect"] if destination is not None and "connect" in destination else None

    def compose(self) -> ComposeResult:
        connect = self._connect()
        name = connect["network"]["name"] if connect is not None else ""
        with Vertical(id="sheet"):
            yield Label(f"Enter the password for “{name}”", id="title")
            yield Input(placeholder="Password", password=True, id="password")
            yield Label(f"Joining “{name}”…", id="joining")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Join", id="join", variant="primary")
        yield Footer()

    def update(self) -> None:
        connect = self._connect()
        if connect is None:
            return
        password = self.query_one("#password", Input)
        # The input leads while the person types; the state wins when it differs from
        # what was sent (the feature refused or changed it).
        if password.value != connect["password"] and connect["password"] != self._sent_password:
            with self.prevent(Input.Changed):
                password.value = connect["password"]
        password.disabled = not connect["isPasswordEditable"]
        if connect["isPasswordEditable"] and not self._was_editable:
            password.focus()  # typing again after a failed join
        self._was_editable = connect["isPasswordEditable"]
        self.query_one("#join", Button).disabled = not connect["isJoinEnabled"]
        self.query_one("#joining", Label).display = connect["isConnecting"]

    def joining_shown(self) -> bool:
        return bool(self.query_one("#joining", Label).display)

    @on(Input.Changed, "#password")
    def password_changed(self, event: Input.Changed) -> None:
        self._sent_password = event.input.value
        self.send({"passwordChanged": {"password": event.input.value}})

    @on(Input.Submitted, "#password")
    @on(Button.Pressed, "#join")
    def join(self) -> None:
        # Enter in the field is the Join button: sent only while the state says Join is enabled.
        connect = self._connect()
        if connect is not None and connect["isJoinEnabled"]:
            self.send("joinButtonTapped")

    @on(Button.Pressed, "#cancel")
    def cancel_pressed(self) -> None:
        self.action_dismiss_sheet()


class DetailSheet(Sheet):
    """A network's details, with Forget This Network; Done is focused, so that Enter
    does the safe thing."""

    kind = "detail"
    AUTO_FOCUS = "#done"

    DEFAULT_CSS = """
    DetailSheet #buttons { height: auto; margin-top: 1; }
    DetailSheet Button { margin-right: 2; }
    """

    def _detail(self) -> fusion_examples.NetworkDetailState | None:
        destination = self.state["destination"]
        return destination["detail"] if destination is not None and "detail" in destination else None

    def compose(self) -> ComposeResult:
        with Vertical(id="sheet"):
            yield Label("", id="title")
            yield Static("", id="facts")
            with Horizontal(id="buttons"):
                yield Button("Forget This Network", id="forget", variant="error")
                yield Button("Done", id="done")
        yield Footer()

    def update(self) -> None:
        detail = self._detail()
        if detail is None:
            return
        network = detail["network"]
        self.query_one("#title", Label).update(network["name"])
        facts = Text()
        facts.append("Security  ", style="dim")
        facts.append(network["securityLabel"] + (" 🔒" if network["isSecured"] else ""))
        facts.append("\nSignal    ", style="dim")
        facts.append_text(signal_bars(network["signalBars"], self.state["signalBarsMaximum"]))
        facts.append(f" {network['signalPercent']}%")
        self.query_one("#facts", Static).update(facts)

    @on(Button.Pressed, "#forget")
    def forget(self) -> None:
        self.send("forgetNetworkButtonTapped")

    @on(Button.Pressed, "#done")
    def done_pressed(self) -> None:
        self.action_dismiss_sheet()


class IncorrectPasswordAlert(WiFiLayer, Alert):
    """The connect sheet's alert after a join with a wrong password."""

    kind = "incorrect-password"
    cancel_button = "ok"

    def compose(self) -> ComposeResult:
        # The feature's words, from the state, as every front end shows them.
        destination = self.state["destination"]
        alert = destination["connect"]["incorrectPasswordAlert"] if destination and "connect" in destination else None
        yield AlertDialog(alert["title"] if alert else "", [("ok", alert["actionLabel"] if alert else "", self.dismiss_alert)],
                          detail=alert["message"] if alert else "")

    def dismiss_alert(self) -> None:
        self.send("incorrectPasswordAlertDismissed")


class ForgetAlert(WiFiLayer, Alert):
    """The detail sheet's confirmation before forgetting."""

    kind = "forget"
    cancel_button = "cancel"
    destructive_button = "confirm"

    def compose(self) -> ComposeResult:
        # The feature's words, from the state, as every front end shows them.
        destination = self.state["destination"]
        alert = destination["detail"]["forgetAlert"] if destination and "detail" in destination else None
        yield AlertDialog(alert["title"] if alert else "",
                          [("confirm", alert["actionLabel"] if alert else "", self.confirm),
                           ("cancel", (alert["cancelLabel"] or "") if alert else "", self.dismiss_alert)],
                          detail=alert["message"] if alert else "")

    def confirm(self) -> None:
        self.send("confirmForgetNetworkButtonTapped")

    def dismiss_alert(self) -> None:
        self.send("forgetAlertDismissed")


#: The layer class for each kind the state can ask for.
LAYERS: dict[str, type[WiFiLayer]] = {
    layer.kind: layer for layer in (ConnectSheet, DetailSheet, IncorrectPasswordAlert, ForgetAlert)}


class WiFiScreen(FeatureScreen[WiFiState, WiFiInput]):
    """The Wi-Fi settings list, with its sheets and alerts over it."""

    TITLE = "Wi-Fi"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("i", "info", "Info"), Binding("w", "toggle_wifi", "Wi-Fi on/off")]

    DEFAULT_CSS = """
    WiFiScreen #wifi-row { height: 3; padding: 0 1; }
    WiFiScreen #wifi-label { width: 1fr; height: 3; content-align: left middle; text-style: bold; }
    WiFiScreen #off-note { padding: 1 2; color: $text-muted; }
    WiFiScreen #networks { height: 1fr; }
    WiFiScreen ListItem.section { padding: 1 1 0 1; color: $text-muted; background: transparent; }
    WiFiScreen ListItem.section Label { text-style: bold; }
    WiFiScreen NetworkRow { padding: 0 1; }
    WiFiScreen NetworkRow Horizontal { height: 1; }
    WiFiScreen NetworkRow .check { width: 2; color: $success; text-style: bold; }
    WiFiScreen NetworkRow .name { width: 1fr; }
    WiFiScreen NetworkRow.selected .name { text-style: bold; }
    WiFiScreen NetworkRow .lock { width: 3; }
    WiFiScreen NetworkRow .bars { width: 4; }
    WiFiScreen NetworkRow .info { width: 3; color: $accent; }
    """

    def __init__(self, library: fusion_examples.Library, options: Options) -> None:
        instance = library.create("wifi", settings={"liveScan": options.live_scan}, clock=options.clock)
        super().__init__(instance, options)
        self._drawn_rows: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="wifi-row"):
            yield Label("Wi-Fi", id="wifi-label")
            # Not animated: it shows the feature's isOn, set from each state, and is where
            # the state says at once (a slide caught half way drew a switch neither on nor off).
            yield Switch(id="wifi-switch", animate=False)
        yield Label("Wi-Fi is off.", id="off-note")
        yield ListView(id="networks")
        yield Footer()

    def appeared(self) -> None:
        self.query_one("#networks", ListView).focus()
        self.send("screenAppeared")

    def disappeared(self) -> None:
        self.send("screenDisappeared")

    # -- drawing ---------------------------------------------------------------------

    async def draw(self, state: WiFiState) -> None:
        switch = self.query_one("#wifi-switch", Switch)
        if switch.value != state["isOn"]:
            with self.prevent(Switch.Changed):
                switch.value = state["isOn"]
        self.query_one("#off-note", Label).display = not state["isOn"]
        await self._draw_networks(state)
        self._draw_layers(state)

    async def _draw_networks(self, state: WiFiState) -> None:
        selected, others, maximum = state["selectedNetwork"], state["otherNetworks"], state["signalBarsMaximum"]
        rows = (selected and _row_key(selected), tuple(_row_key(network) for network in others),
                state["otherNetworksHeading"], maximum)
        if rows == self._drawn_rows:
            return
        self._drawn_rows = rows
        networks = self.query_one("#networks", ListView)
        highlighted = networks.highlighted_child
        keep = highlighted.network_id if isinstance(highlighted, NetworkRow) else None
        items: list[ListItem] = []
        if selected is not None:
            items += [SectionHeader("My Network"), NetworkRow(selected, maximum, selected=True)]
        if others:
            items.append(SectionHeader(state["otherNetworksHeading"]))
            items += [NetworkRow(network, maximum, selected=False) for network in others]
        await networks.clear()
        await networks.extend(items)
        rows_at = [index for index, item in enumerate(items) if isinstance(item, NetworkRow)]
        kept = [index for index in rows_at if getattr(items[index], "network_id", None) == keep]
        networks.index = (kept or rows_at)[0] if rows_at else None

    def _draw_layers(self, state: WiFiState) -> None:
        """Pushes and pops the sheets and alerts so that they are what the state says."""
        wanted: list[tuple[str, str]] = []
        destination = state["destination"]
        if destination is not None and "connect" in destination:
            connect = destination["connect"]
            wanted.append(("connect", connect["network"]["id"]))
            if connect["incorrectPasswordAlertIsPresented"]:
                wanted.append(("incorrect-password", connect["network"]["id"]))
        elif destination is not None and "detail" in destination:
            detail = destination["detail"]
            wanted.append(("detail", detail["network"]["id"]))
            if detail["forgetAlertIsPresented"]:
                wanted.append(("forget", detail["network"]["id"]))
        shown = self._layers()
        keep = 0
        while keep < min(len(shown), len(wanted)) and shown[keep].key == wanted[keep]:
            keep += 1
        for _ in shown[keep:]:
            self.app.pop_screen()
        for layer in shown[:keep]:
            layer.show(state)
        for key in wanted[keep:]:
            layer_class = LAYERS[key[0]]
            self.app.push_screen(layer_class(key, self.send, state))

    def _layers(self) -> list[WiFiLayer]:
        stack = self.app.screen_stack
        if self not in stack:
            return []
        return [screen for screen in stack[stack.index(self) + 1:] if isinstance(screen, WiFiLayer)]

    # -- what the person does --------------------------------------------------------

    @on(Switch.Changed, "#wifi-switch")
    def toggled(self, event: Switch.Changed) -> None:
        self.send({"wifiToggled": {"isOn": event.value}})

    @on(ListView.Selected, "#networks")
    def tapped(self, event: ListView.Selected) -> None:
        if isinstance(event.item, NetworkRow):
            self.send({"networkTapped": {"id": event.item.network_id}})

    def action_toggle_wifi(self) -> None:
        """The switch from the keyboard: as a click on it (its change sends wifiToggled)."""
        self.query_one("#wifi-switch", Switch).toggle()

    def action_info(self) -> None:
        row = self.query_one("#networks", ListView).highlighted_child
        if isinstance(row, NetworkRow):
            self.send({"infoButtonTapped": {"id": row.network_id}})

    def on_info_button_pressed(self, message: InfoButton.Pressed) -> None:
        self.send({"infoButtonTapped": {"id": message.network_id}})

    # -- what it shows ---------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """{"screen": "list"|"connect"|"detail", "selected": name or None,
        "alert": "incorrect-password"|"forget"|None, "joining": bool}, from the widgets."""
        screen, joining = "list", False
        alert: str | None = None
        for layer in self._layers():
            if isinstance(layer, Sheet):
                screen = layer.kind
                joining = isinstance(layer, ConnectSheet) and layer.joining_shown()
            else:
                alert = layer.kind
        rows = [row for row in self.query_one("#networks", ListView).query(NetworkRow) if row.has_class("selected")]
        return {"screen": screen, "selected": rows[0].shown_name() if rows else None, "alert": alert,
                "joining": joining}
