// Answer: draws {answer, isSubmitEnabled, isSubmitting, submitted};
// sends answerChanged {text}, submitTapped, resultDismissed.
import { $, Page, bindTextField, setText } from "/common.js";

/** @typedef {import("./types/fusion-examples").Features} Features */

/** @type {Page<Features, "answer">} */
const page = new Page();
// The elements this page draws into, found once by their data-test names (listed at the
// top of the page's HTML); every page script starts this way.
const field = $('[data-test="answer"]');
const submit = $('[data-test="submit"]');
const submitting = $('[data-test="submitting"]');
const result = $('[data-test="result"]');
const resultText = $('[data-test="result-text"]');

const syncAnswer = bindTextField(field, page, (text) => ({ answerChanged: { text } }));

/** @param {Features["answer"]["state"]} state */
function render(state) {
    syncAnswer(state.answer);
    submit.disabled = !state.isSubmitEnabled;
    setText(submit, state.isSubmitting ? "Submitting…" : "Submit");
    submitting.hidden = !state.isSubmitting;
    result.hidden = state.submitted == null;
    if (state.submitted != null) setText(resultText, state.submitted);
}

submit.addEventListener("click", () => page.send("submitTapped"));
field.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    // The feature decides whether a submit counts (it ignores one while not enabled).
    if (event.key === "Enter") page.send("submitTapped");
});
$('[data-test="dismiss-result"]').addEventListener("click", () => page.send("resultDismissed"));

page.openFromQuery("answer", render);
