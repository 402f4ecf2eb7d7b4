// Wi-Fi settings: draws the `wifi` state (isOn, selectedNetwork, otherNetworks,
// isScanning, destination) and sends the screen's inputs. No derived values here.
import { $, h, Page, optionsFromQuery, bindTextField, setDialog, onDialogDismiss, setText } from "/common.js";

/** @typedef {import("./types/fusion-examples").Features} Features */
/** @typedef {import("./types/fusion-examples").Network} Network */
/** @typedef {Features["wifi"]["state"]} WiFiState */
/**
 * A union of one-field cases ({connect: …} | {detail: …}) as one object whose fields are
 * all optional, so render can ask for each case (`destination?.connect`) as it did.
 * @template T
 * @typedef {{ [K in T extends unknown ? keyof T : never]?: T extends Record<K, infer V> ? V : never }} EitherCase
 */

/** @type {Page<Features, "wifi">} */
const page = new Page();
// The elements this page draws into, found once by their data-test names (listed at the
// top of the page's HTML); every page script starts this way.
const toggle = $('[data-test="wifi-toggle"]');
const toggleRow = $('[data-role="toggle-row"]');
const networksSection = $('[data-test="networks-section"]');
const networksHeading = $('[data-test="networks-heading"]');
const networksList = $('[data-role="networks"]');
const scanning = $('[data-test="scanning"]');

const connectSheet = $('[data-test="connect-sheet"]');
const connectName = $('[data-test="connect-name"]');
const password = $('[data-test="password"]');
const join = $('[data-test="join"]');
const joining = $('[data-test="joining"]');
const incorrectAlert = $('[data-test="incorrect-password-alert"]');
// The alerts' words come from the state (the feature's), as in every front end.
const incorrectTitle = $('[data-role="incorrect-title"]');
const incorrectMessage = $('[data-role="incorrect-message"]');
const incorrectOK = $('[data-test="alert-ok"]');

const detailSheet = $('[data-test="detail-sheet"]');
const detailName = $('[data-test="detail-name"]');
const detailSecurity = $('[data-test="detail-security"]');
const detailSignal = $('[data-test="detail-signal"]');
const detailID = $('[data-test="detail-id"]');
const forgetAlert = $('[data-test="forget-alert"]');
const forgetTitle = $('[data-role="forget-title"]');
const forgetMessage = $('[data-role="forget-message"]');
const confirmForget = $('[data-test="confirm-forget"]');
const cancelForget = $('[data-test="cancel-forget"]');

const LOCK = `<svg class="lock" data-test="lock" viewBox="0 0 12 16" aria-hidden="true"><path d="M3.2 7V5a2.8 2.8 0 0 1 5.6 0v2" fill="none" stroke="currentColor" stroke-width="1.7"/><rect x="1" y="7" width="10" height="8.2" rx="2" fill="currentColor"/></svg>`;
const INFO = `<svg viewBox="0 0 22 22" aria-hidden="true"><circle cx="11" cy="11" r="9.6" fill="none" stroke="currentColor" stroke-width="1.5"/><circle cx="11" cy="6.9" r="1.25" fill="currentColor"/><rect x="10.05" y="9.4" width="1.9" height="6.6" rx="0.95" fill="currentColor"/></svg>`;

// ---------------------------------------------------------------------------------
// Network rows

/**
 * A row: [✓] name … 🔒 bars (i). Its buttons send the network's id.
 * @param {Network} network
 * @param {boolean} selected
 */
function makeRow(network, selected) {
    const main = h("button", { class: "net-main", type: "button" },
        h("span", { class: "checkmark", "aria-hidden": "true" }, selected ? "✓" : ""),
        h("span", { class: "label", "data-test": "network-name" }));
    const icons = h("span", { class: "icons" });
    const info = h("button", { class: "info-button", type: "button", "data-test": "info-button" });
    info.innerHTML = INFO;
    const row = h("li", { class: "net", "data-test": selected ? "selected-network" : "network-row" }, main, icons, info);
    // updateRow sets the id before the row is shown.
    main.addEventListener("click", () => page.send({ networkTapped: { id: /** @type {string} */ (row.dataset.id) } }));
    info.addEventListener("click", () => page.send({ infoButtonTapped: { id: /** @type {string} */ (row.dataset.id) } }));
    return row;
}

/**
 * @param {HTMLElement} row
 * @param {Network} network
 * @param {number} maximum  how many bars the feature says there are (state.signalBarsMaximum)
 */
function updateRow(row, network, maximum) {
    row.dataset.id = network.id;
    // The parts makeRow made.
    setText(/** @type {Element} */ (row.querySelector('[data-test="network-name"]')), network.name);
    /** @type {Element} */ (row.querySelector(".info-button")).setAttribute("aria-label", `About ${network.name}`);
    const icons = /** @type {HTMLElement} */ (row.querySelector(".icons"));
    const level = network.signalBars;
    const key = `${network.securityLabel}:${level}:${maximum}`;
    if (icons.dataset.key !== key) {
        icons.dataset.key = key;
        // A bar per step of the feature's scale; the first `level` of them are lit.
        const bars = Array.from({ length: maximum }, (_, index) => `<i class="${index < level ? "lit" : ""}" style="height: ${Math.round(14 * (index + 1) / maximum)}px"></i>`).join("");
        icons.innerHTML = `${network.isSecured ? LOCK : ""}<span class="bars" data-test="signal" data-level="${level}" role="img" aria-label="${network.securityLabel}, signal ${level} of ${maximum}">${bars}</span>`;
    }
    icons.title = `Signal ${network.signalPercent} %`;
}

/**
 * Draws `networks` into `list` in order, keeping each network's row (and focus).
 * @param {HTMLElement} list
 * @param {Network[]} networks
 * @param {number} maximum
 * @param {boolean} animate
 */
function renderList(list, networks, maximum, animate) {
    // Its children are the rows makeRow made.
    const rows = new Map([.../** @type {HTMLCollectionOf<HTMLElement>} */ (list.children)].map((row) => [row.dataset.id, row]));
    /** @type {HTMLElement | null} */
    let previous = null;
    for (const network of networks) {
        let row = rows.get(network.id);
        if (row) {
            rows.delete(network.id);
        } else {
            row = makeRow(network, false);
            if (animate) row.classList.add("appearing");
        }
        updateRow(row, network, maximum);
        /** @type {ChildNode | null} */
        const expected = previous ? previous.nextSibling : list.firstChild;
        if (row !== expected) list.insertBefore(row, expected);
        previous = row;
    }
    for (const row of rows.values()) row.remove();
}

/** @type {HTMLElement | null} */
let selectedRow = null;

/**
 * @param {Network | null} network
 * @param {number} maximum
 */
function renderSelected(network, maximum) {
    if (!network) {
        selectedRow?.remove();
        selectedRow = null;
        return;
    }
    if (!selectedRow || selectedRow.dataset.id !== network.id) {
        selectedRow?.remove();
        selectedRow = makeRow(network, true);
        toggleRow.after(selectedRow);
    }
    updateRow(selectedRow, network, maximum);
}

// ---------------------------------------------------------------------------------
// The screen

const syncPassword = bindTextField(password, page, (value) => ({ passwordChanged: { password: value } }));
let drawn = false;

/** @param {WiFiState} state */
function render(state) {
    toggle.checked = state.isOn;
    renderSelected(state.selectedNetwork, state.signalBarsMaximum);
    networksSection.hidden = !state.isOn;
    setText(networksHeading, state.otherNetworksHeading);
    renderList(networksList, state.otherNetworks, state.signalBarsMaximum, drawn);
    scanning.hidden = !state.isScanning;

    const destination = /** @type {EitherCase<NonNullable<WiFiState["destination"]>> | null} */ (state.destination);
    const connect = destination?.connect ?? null;
    const detail = destination?.detail ?? null;

    // Close from the top down, open from the bottom up: alerts sit on their sheets.
    if (!connect?.incorrectPasswordAlertIsPresented) setDialog(incorrectAlert, false);
    if (!detail?.forgetAlertIsPresented) setDialog(forgetAlert, false);

    if (connect) {
        setText(connectName, connect.network.name);
        setText(incorrectTitle, connect.incorrectPasswordAlert.title);
        setText(incorrectMessage, connect.incorrectPasswordAlert.message);
        setText(incorrectOK, connect.incorrectPasswordAlert.actionLabel);
        syncPassword(connect.password);
        password.disabled = !connect.isPasswordEditable;
        join.disabled = !connect.isJoinEnabled;
        joining.hidden = !connect.isConnecting;
    }
    setDialog(connectSheet, connect !== null);
    setDialog(incorrectAlert, connect?.incorrectPasswordAlertIsPresented === true);

    if (detail) {
        setText(detailName, detail.network.name);
        setText(forgetTitle, detail.forgetAlert.title);
        setText(forgetMessage, detail.forgetAlert.message);
        setText(confirmForget, detail.forgetAlert.actionLabel);
        setText(cancelForget, detail.forgetAlert.cancelLabel ?? "");
        setText(detailSecurity, detail.network.securityLabel);
        setText(detailSignal, `${detail.network.signalPercent} %`);
        setText(detailID, detail.network.id);
    }
    setDialog(detailSheet, detail !== null);
    setDialog(forgetAlert, detail?.forgetAlertIsPresented === true);
    drawn = true;
}

toggle.addEventListener("change", () => {
    // Drawn from the state again once the feature has answered (a refusal puts it back).
    page.send({ wifiToggled: { isOn: toggle.checked } }).finally(() => {
        if (page.instance?.state) toggle.checked = page.instance.state.isOn;
    });
});

join.addEventListener("click", () => page.send("joinButtonTapped"));
// Enter is the Join button: it sends only while the state says Join is enabled (the
// feature would ignore it otherwise, but a screen does not send what it shows as off).
password.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    if (event.key !== "Enter") return;
    const connect = /** @type {EitherCase<NonNullable<WiFiState["destination"]>> | null | undefined} */ (page.instance?.state?.destination)?.connect;
    if (connect?.isJoinEnabled) page.send("joinButtonTapped");
});
$('[data-test="cancel"]').addEventListener("click", () => page.send("destinationDismissed"));
$('[data-test="alert-ok"]').addEventListener("click", () => page.send("incorrectPasswordAlertDismissed"));
$('[data-test="done"]').addEventListener("click", () => page.send("destinationDismissed"));
$('[data-test="forget"]').addEventListener("click", () => page.send("forgetNetworkButtonTapped"));
$('[data-test="confirm-forget"]').addEventListener("click", () => page.send("confirmForgetNetworkButtonTapped"));
$('[data-test="cancel-forget"]').addEventListener("click", () => page.send("forgetAlertDismissed"));

// Escape closes the top dialog in a browser: tell the feature, which decides.
onDialogDismiss(connectSheet, () => page.send("destinationDismissed"));
onDialogDismiss(incorrectAlert, () => page.send("incorrectPasswordAlertDismissed"));
onDialogDismiss(detailSheet, () => page.send("destinationDismissed"));
onDialogDismiss(forgetAlert, () => page.send("forgetAlertDismissed"));

// The screen's lifetime, as a view controller reports it.
addEventListener("pagehide", () => page.instance?.send("screenDisappeared").catch(() => {}));
addEventListener("pageshow", (event) => {
    if (event.persisted) page.send("screenAppeared");
});

try {
    await page.open("wifi", { options: optionsFromQuery(), render, ready: false });
    await page.send("screenAppeared");
    page.markReady();
} catch (error) {
    page.showError(error);
}
