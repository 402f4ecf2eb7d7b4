// Home: draws {title, desc}; sends viewDidLoad on every load, tap1 and tap2 on a click.
import { $, Page, optionsFromQuery, setText } from "/common.js";

/** @typedef {import("./types/fusion-examples").Features} Features */

/** @type {Page<Features, "home">} */
const page = new Page();
// The elements this page draws into, found once by their data-test names (listed at the
// top of the page's HTML); every page script starts this way.
const title = $('[data-test="title"]');
const desc = $('[data-test="desc"]');

/** @param {Features["home"]["state"]} state */
function render(state) {
    setText(title, state.title);
    setText(desc, state.desc);
}

for (const input of /** @type {const} */ (["tap1", "tap2"])) {
    $(`[data-test="${input}"]`).addEventListener("click", () => page.send(input));
}

try {
    await page.open("home", { options: optionsFromQuery(), render, ready: false });
    // The view loaded. Whether a reloaded page's instance already heard it is the feature's call.
    await page.send("viewDidLoad");
    page.markReady();
} catch (error) {
    page.showError(error);
}
