// Profile: draws {pet, family, school, babyProfile, pending, isLoading, error, signedInAs} and sends
// loadAllProfiles, retryTapped, errorDismissed. Separately, it plays the host: it answers
// the feature's host requests (the "network"), automatically or by hand.
import { $, h, Page, optionsFromQuery, setText } from "/common.js";

/** @typedef {import("./types/fusion-examples").Features} Features */
/** @typedef {Features["profile"]["state"]} ProfileState */
/** @typedef {import("./types/fusion-examples").ProfileStore.Fetch} Fetch */
/** @typedef {import("/common.js").FeatureInstance<Features, "profile">} ProfileInstance */
/** @typedef {import("/fusionkit.js").JSONValue} JSONValue */
/** @typedef {import("/fusionkit.js").RequestID} RequestID */
/** @typedef {import("/fusionkit.js").HostRequest} HostRequest */

/** @type {Page<Features, "profile">} */
const page = new Page();

// ---------------------------------------------------------------------------------
// The feature's view

/**
 * A card: the state field it shows, and how it draws the field's value (when not null).
 * @typedef {{ [K in "pet" | "family" | "school" | "babyProfile"]: { card: any, field: K, draw: (value: NonNullable<ProfileState[K]>) => HTMLElement } }} Parts
 * @typedef {Parts[keyof Parts]} Part
 */

/** @type {Record<Fetch, Part>} */
const parts = {
    pet: { card: $('[data-test="part-pet"]'), field: "pet", draw: drawPet },
    family: { card: $('[data-test="part-family"]'), field: "family", draw: drawFamily },
    preschool: { card: $('[data-test="part-preschool"]'), field: "school", draw: drawSchool },
    babyProfile: { card: $('[data-test="part-babyProfile"]'), field: "babyProfile", draw: drawBaby },
};
const loading = $('[data-test="loading"]');
const banner = $('[data-test="error"]');
const bannerMessage = $('[data-test="error-message"]');
const signedIn = $('[data-test="signed-in"]');

const facts = (/** @type {[string, string | number][]} */ pairs) => h("dl", {}, pairs.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]));
/** @param {import("./types/fusion-examples").PetEntity} pet */
function drawPet(pet) {
    return facts([["Name", pet.name], ["Species", pet.species], ["Age", pet.age]]);
}
/** @param {import("./types/fusion-examples").FamilyEntity} family */
function drawFamily(family) {
    return h("ul", { class: "members" },
        family.members.map((member) => h("li", {}, h("span", {}, member.name), h("span", { class: "muted" }, member.relation))));
}
/** @param {import("./types/fusion-examples").PreSchoolEntity} school */
function drawSchool(school) {
    return facts([["Name", school.name], ["Class", school.className], ["Teacher", school.teacher]]);
}
/** @param {import("./types/fusion-examples").BabyProfile} baby */
function drawBaby(baby) {
    return facts([["Name", baby.name], ["Born", baby.birthDate], ["Height", `${baby.heightCm} cm`], ["Weight", `${baby.weightKg} kg`]]);
}
const skeleton = () => h("div", { class: "skeleton", "aria-label": "Loading" }, h("i"), h("i"), h("i"));

/** @param {ProfileState} state */
function render(state) {
    for (const [name, part] of /** @type {[Fetch, Part][]} */ (Object.entries(parts))) {
        const isLoading = state.pending.includes(name);
        const value = state[part.field];
        // Redraw only when what the card shows changed.
        const key = JSON.stringify([isLoading, value]);
        if (part.card.dataset.key === key) continue;
        part.card.dataset.key = key;
        part.card.dataset.loading = String(isLoading);
        part.card.dataset.loaded = String(value != null);
        const body = part.card.querySelector(".part-body");
        // `any`: TypeScript cannot pair the union's value with its draw; Parts pairs them.
        body.replaceChildren(isLoading ? skeleton() : value != null ? part.draw(/** @type {any} */ (value)) : h("p", { class: "empty" }, "Not loaded yet."));
    }
    loading.hidden = !state.isLoading;
    // Who the bridge says is signed in (from the token), never what the page believes.
    signedIn.hidden = state.signedInAs == null;
    setText(signedIn, state.signedInAs == null ? "" : `Signed in as ${state.signedInAs}`);
    banner.hidden = state.error == null;
    if (state.error != null) setText(bannerMessage, state.error);
}

$('[data-test="load"]').addEventListener("click", () => page.send("loadAllProfiles"));
$('[data-test="retry"]').addEventListener("click", () => page.send("retryTapped"));
$('[data-test="dismiss-error"]').addEventListener("click", () => page.send("errorDismissed"));

// ---------------------------------------------------------------------------------
// The host: answering host requests, as a network would

/** @type {{[kind: string]: JSONValue}} */
const SAMPLES = {
    fetchPet: { name: "Mochi", species: "dog", age: 3 },
    fetchFamily: { members: [{ name: "Jiwoo", relation: "mother" }, { name: "Minho", relation: "father" }] },
    fetchPreschool: { name: "Sunflower Preschool", className: "Rabbits", teacher: "Ms. Han" },
    fetchBabyProfile: { name: "Seoyeon", birthDate: "2023-05-02", heightCm: 92.5, weightKg: 13.4 },
};

const requestList = $('[data-test="requests"]');
const log = $('[data-test="request-log"]');
const autoAnswer = $('[data-test="auto-answer"]');

/** @param {string} text */
function note(text) {
    const time = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    log.prepend(h("li", {}, `${time}  ${text}`));
    while (log.children.length > 30) log.lastChild.remove();
}

/** @param {string} kind */
function sample(kind) {
    if (!(kind in SAMPLES)) throw new Error(`this host cannot answer "${kind}"`);
    return SAMPLES[kind];
}

// Why each request we answered left the list: "answered", "failed", "answered automatically".
/** @type {Map<RequestID, string>} */
const outcome = new Map();

// answer() and fail() are the buttons of requests the instance has: there is one.

/** @param {RequestID} id @param {string} kind */
function answer(id, kind) {
    outcome.set(id, "answered");
    /** @type {ProfileInstance} */ (page.instance).respond(id, sample(kind)).catch((error) => {
        outcome.delete(id);
        page.showError(error);
    });
}

/** @param {RequestID} id @param {string} kind */
function fail(id, kind) {
    outcome.set(id, "failed");
    /** @type {ProfileInstance} */ (page.instance).fail(id, `${kind} failed: the network is unreachable`).catch((error) => {
        outcome.delete(id);
        page.showError(error);
    });
}

/** @type {ReadonlyMap<RequestID, HostRequest>} */
let previous = new Map();
/** @param {ReadonlyMap<RequestID, HostRequest>} requests */
function renderRequests(requests) {
    for (const [id, request] of requests) if (!previous.has(id)) note(`heard ${request.kind} #${id}`);
    for (const [id, request] of previous) {
        if (requests.has(id)) continue;
        note(outcome.has(id) ? `${outcome.get(id)} ${request.kind} #${id}` : `${request.kind} #${id} cancelled by the feature`);
        outcome.delete(id);
    }
    previous = requests;
    requestList.replaceChildren(
        ...[...requests].map(([id, request]) =>
            h("li", { "data-test": "request", "data-kind": request.kind, "data-id": String(id) },
                h("span", { class: "kind", title: JSON.stringify(request.payload) }, `${request.kind} `, h("span", { class: "muted" }, `#${id}`)),
                h("button", { class: "btn small", "data-test": "answer", onclick: () => answer(id, request.kind) }, "Answer"),
                h("button", { class: "btn small danger-tinted", "data-test": "fail", onclick: () => fail(id, request.kind) }, "Fail"))),
    );
    if (requests.size === 0) requestList.append(h("li", { class: "none" }, "No open requests."));
}

/** @type {(ms: number, signal?: AbortSignal) => Promise<void>} */
const delay = (ms, signal) => new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(new Error("cancelled"));
    });
});

/** @type {(() => void) | null} */
let stopAnswering = null;
/** @param {boolean} on */
function setAutoAnswer(on) {
    stopAnswering?.();
    stopAnswering = null;
    if (!on || !page.instance) return;
    // Staggered, as a network would answer: 300–900 ms each.
    stopAnswering = page.instance.onRequest(async (kind, payload, id, signal) => {
        await delay(300 + Math.random() * 600, signal);
        const result = sample(kind);
        outcome.set(id, "answered automatically");
        return result;
    });
}
autoAnswer.addEventListener("change", () => setAutoAnswer(autoAnswer.checked));

try {
    const instance = await page.open("profile", { options: optionsFromQuery(location.search, { requests: "host" }), render });
    instance.onRequests(renderRequests);
    setAutoAnswer(autoAnswer.checked);
} catch (error) {
    page.showError(error);
}
