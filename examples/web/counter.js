// Counter: draws {value, isReset, alert}; sends increase, decrease, reset, show, alertDismissed.
import { $, Page, setDialog, onDialogDismiss, setText } from "/common.js";

/** @typedef {import("./types/fusion-examples").Features} Features */

/** @type {Page<Features, "counter">} */
const page = new Page();
// The elements this page draws into, found once by their data-test names (listed at the
// top of the page's HTML); every page script starts this way.
const value = $('[data-test="value"]');
const isReset = $('[data-test="is-reset"]');
const alert = $('[data-test="alert"]');
const alertMessage = $('[data-test="alert-message"]');

/** @param {Features["counter"]["state"]} state */
function render(state) {
    setText(value, state.value);
    isReset.dataset.value = String(state.isReset);
    isReset.classList.toggle("on", state.isReset);
    setText(isReset, `isReset: ${state.isReset}`);
    if (state.alert != null) setText(alertMessage, state.alert);
    setDialog(alert, state.alert != null);
}

for (const input of /** @type {const} */ (["increase", "decrease", "reset", "show"])) {
    $(`[data-test="${input}"]`).addEventListener("click", () => page.send(input));
}
$('[data-test="alert-ok"]').addEventListener("click", () => page.send("alertDismissed"));
onDialogDismiss(alert, () => page.send("alertDismissed"));

page.openFromQuery("counter", render);
