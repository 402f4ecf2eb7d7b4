// The generic page: any feature of any library, driven from its manifest.
import { $, $$, h, Page, optionsFromQuery, setText, FusionError } from "/common.js";

/** @typedef {import("/fusionkit.js").JSONValue} JSONValue */
/** @typedef {import("/fusionkit.js").CreateOptions} CreateOptions */
/** @typedef {import("/fusionkit.js").Instance} Instance (of any feature: any state, any input) */
/** @typedef {import("/fusionkit.js").RequestID} RequestID */
/** @typedef {import("/fusionkit.js").HostRequest} HostRequest */

// Any feature: its types are the manifest's, known only at run time.
const page = new Page();
const params = new URLSearchParams(location.search);
const featureName = params.get("feature");

// ---------------------------------------------------------------------------------
// The state tree

const tree = $('[data-test="state-tree"]');
const json = $('[data-test="state-json"]');
const rawToggle = $('[data-test="raw-toggle"]');
/** JSON Pointer → open or not, as the person left it; default: open to depth 2.
 *  @type {Map<string, boolean>} */
const expanded = new Map();
/** @type {JSONValue | undefined} */
let previousState;
/** @type {JSONValue | undefined} */
let currentState;

/** @type {(path: string, key: string | number) => string} */
const pointer = (path, key) => `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
/** @type {(value: JSONValue | undefined) => value is JSONValue[] | {[key: string]: JSONValue}} */
const isContainer = (value) => value !== null && typeof value === "object";

/** @param {JSONValue} value */
function leafText(value) {
    if (value === null) return h("span", { class: "null" }, "null");
    switch (typeof value) {
        case "string": return h("span", { class: "str" }, JSON.stringify(value));
        case "number": return h("span", { class: "num" }, String(value));
        case "boolean": return h("span", { class: "bool" }, String(value));
        default: return h("span", {}, JSON.stringify(value));
    }
}

/** @param {string | null} key */
function keyLabel(key) {
    return key === null ? null : [h("span", { class: "key" }, key), ": "];
}

/**
 * One value as a tree node; `before` is the value at the same place in the last state drawn.
 * @param {string | null} key
 * @param {JSONValue} value
 * @param {JSONValue | undefined} before
 * @param {string} path
 * @param {number} depth
 * @param {boolean} first
 * @returns {HTMLElement}
 */
function node(key, value, before, path, depth, first) {
    const changed = !first && (before === undefined ? true : isContainer(value) !== isContainer(before) || (!isContainer(value) && value !== before));
    if (isContainer(value) && Object.keys(value).length > 0) {
        const isArray = Array.isArray(value);
        /** @type {[string | number, JSONValue][]} */
        const entries = isArray ? value.map((item, index) => [index, item]) : Object.entries(value);
        const meta = isArray ? `[${value.length}]` : `{${entries.length}}`;
        const metaChanged = !first && (!isContainer(before) || Object.keys(before).length !== entries.length);
        const details = h("details", { "data-path": path || "/" },
            h("summary", { class: changed || metaChanged ? "changed" : null }, keyLabel(key), h("span", { class: "meta" }, meta)));
        details.open = expanded.get(path) ?? depth < 2;
        details.addEventListener("toggle", () => expanded.set(path, details.open));
        for (const [childKey, child] of entries) {
            // An array's items read by key too ("0"), as JavaScript does.
            const childBefore = isContainer(before) ? /** @type {{[key: string]: JSONValue}} */ (before)[childKey] : undefined;
            details.append(node(String(childKey), child, childBefore, pointer(path, childKey), depth + 1, first));
        }
        return details;
    }
    const text = isContainer(value) ? h("span", { class: "meta" }, Array.isArray(value) ? "[]" : "{}") : leafText(value);
    return h("div", { class: changed ? "leaf changed" : "leaf", "data-path": path || "/" }, keyLabel(key), text);
}

/** @param {JSONValue} state @param {number} version */
function drawState(state, version) {
    const first = previousState === undefined;
    tree.replaceChildren(node(null, state, previousState, "", 0, first));
    json.textContent = JSON.stringify(state, null, 2);
    setText($('[data-test="state-version"]'), version);
    previousState = state;
    currentState = state;
}

/** @param {boolean} open */
function setAll(open) {
    for (const details of $$("details", tree)) {
        details.open = open;
        expanded.set(details.dataset.path === "/" ? "" : details.dataset.path, open);
    }
}

$('[data-test="expand-all"]').addEventListener("click", () => setAll(true));
$('[data-test="collapse-all"]').addEventListener("click", () => setAll(false));
rawToggle.addEventListener("click", () => {
    const showRaw = json.hidden;
    json.hidden = !showRaw;
    tree.hidden = showRaw;
    setText(rawToggle, showRaw ? "Tree" : "JSON");
});
$('[data-test="resync"]').addEventListener("click", () => page.instance?.resync().catch(page.showError));

// ---------------------------------------------------------------------------------
// Input forms, typed from the manifest

const log = $('[data-test="log"]');
/** @param {string} text */
function note(text, failed = false) {
    log.prepend(h("li", { style: failed ? "color: var(--danger)" : null }, text));
    while (log.children.length > 40) log.lastChild.remove();
}

/**
 * A control for one field, and how to read its value (throws on a bad one).
 * @param {string} caseName
 * @param {import("/fusionkit.js").ManifestField} field
 */
function fieldControl(caseName, field) {
    let type = field.type ?? "any";
    let optional = field.required === false;
    if (type.endsWith("?")) {
        optional = true;
        type = type.slice(0, -1);
    }
    const test = `field-${caseName}-${field.name}`;
    /** @type {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} */
    let control;
    /** @type {() => JSONValue} */
    let read;
    // A JSON Schema, when there is one: an object.
    const schema = /** @type {{enum?: JSONValue} | null | undefined} */ (field.schema);
    const choices = Array.isArray(schema?.enum) ? /** @type {{enum: JSONValue[]}} */ (schema).enum : null;
    switch (choices ? "enum" : type) {
        case "enum":  // a fixed set of values (a String-backed Swift enum): pick one
            control = h("select", { "data-test": test }, /** @type {JSONValue[]} */ (choices).map((choice) => h("option", { value: JSON.stringify(choice) }, String(choice))));
            read = () => JSON.parse(control.value);
            break;
        case "string":
            control = h("input", { type: "text", "data-test": test, autocomplete: "off" });
            read = () => control.value;
            break;
        case "boolean":
        case "bool":
            control = h("input", { type: "checkbox", "data-test": test });
            read = () => /** @type {HTMLInputElement} */ (control).checked;
            break;
        case "integer":
        case "int":
        case "number":
        case "double":
        case "float": {
            const integer = type === "integer" || type === "int";
            control = h("input", { type: "number", "data-test": test, step: integer ? "1" : "any", value: "0" });
            read = () => {
                const value = /** @type {HTMLInputElement} */ (control).valueAsNumber;
                if (!Number.isFinite(value)) throw new FusionError("PAGE_INVALID_FIELD", `${caseName}.${field.name}: not a number`);
                if (integer && !Number.isInteger(value)) throw new FusionError("PAGE_INVALID_FIELD", `${caseName}.${field.name}: not an integer`);
                return value;
            };
            break;
        }
        default:
            control = h("textarea", { "data-test": test, rows: 2, placeholder: `${type} as JSON`, spellcheck: "false" });
            read = () => {
                try {
                    return JSON.parse(control.value);
                } catch (error) {
                    throw new FusionError("PAGE_INVALID_JSON", `${caseName}.${field.name}: ${/** @type {Error} */ (error).message}`);
                }
            };
    }
    const line = h("label", { class: "field-line" }, h("span", { class: "field-name" }, `${field.name}: ${field.type}`), control);
    if (optional) {
        const isNull = h("input", { type: "checkbox", "data-test": `null-${caseName}-${field.name}` });
        isNull.checked = type !== "string" && type !== "boolean" && type !== "bool";
        control.addEventListener("input", () => { isNull.checked = false; });
        line.append(h("label", { class: "check nullable" }, isNull, "null"));
        const readValue = read;
        read = () => (isNull.checked ? null : readValue());
    }
    return { line, read, name: field.name };
}

/** @param {import("/fusionkit.js").ManifestInput} input */
function inputForm(input) {
    const fields = (input.fields ?? []).map((field) => fieldControl(input.name, field));
    const button = h("button", { class: "btn", type: "submit", "data-test": `input-${input.name}` }, input.name);
    const form = h("form", { class: "input-case", "data-test": "input-case", "data-name": input.name },
        fields.length > 0 ? h("div", { class: "fields" }, fields.map((field) => field.line)) : null,
        button);
    form.addEventListener("submit", (event) => {
        event.preventDefault();
        /** @type {import("/fusionkit.js").Input} */
        let message;
        try {
            if (fields.length === 0) {
                message = input.name;
            } else {
                /** @type {{[field: string]: JSONValue}} */
                const values = {};
                for (const field of fields) values[field.name] = field.read();
                message = { [input.name]: values };
            }
        } catch (error) {
            page.showError(error);
            return;
        }
        const shown = JSON.stringify(message);
        if (!page.instance) {
            page.showError(new FusionError("PAGE_NO_INSTANCE", "there is no instance to send to: it could not be created (see the error above), or change the options and reload"));
            return;
        }
        page.instance.send(message).then(
            ({ version }) => note(`→ ${shown}  ✓ v${version}`),
            (error) => {
                note(`→ ${shown}  ✗ ${error.status}`, true);
                page.showError(error);
            },
        );
    });
    return form;
}

// ---------------------------------------------------------------------------------
// Host requests and the clock

const requestsCard = $('[data-test="host-requests"]');
const requestList = $('[data-role="request-list"]');
let hostRequests = false;

/** @param {ReadonlyMap<RequestID, HostRequest>} requests */
function drawRequests(requests) {
    requestsCard.hidden = !hostRequests && requests.size === 0;
    const items = [...requests].map(([id, request]) => {
        const result = h("textarea", { "data-test": "result", rows: 3, spellcheck: "false", placeholder: "result as JSON" }, "null");
        const failMessage = h("input", { type: "text", "data-test": "fail-message", value: "failed by the page" });
        const respond = h("button", { class: "btn small", type: "button", "data-test": "respond" }, "Respond");
        const fail = h("button", { class: "btn small danger-tinted", type: "button", "data-test": "fail" }, "Fail");
        respond.addEventListener("click", () => {
            /** @type {JSONValue} */
            let value;
            try {
                value = JSON.parse(result.value);
            } catch (error) {
                page.showError(new FusionError("PAGE_INVALID_JSON", `result: ${/** @type {Error} */ (error).message}`));
                return;
            }
            // The requests drawn are the instance's: there is one.
            /** @type {Instance} */ (page.instance).respond(id, value).then(() => note(`← respond #${id} (${request.kind})`), page.showError);
        });
        fail.addEventListener("click", () => {
            /** @type {Instance} */ (page.instance).fail(id, failMessage.value).then(() => note(`← fail #${id} (${request.kind})`), page.showError);
        });
        return h("div", { class: "request-item", "data-test": "request", "data-kind": request.kind, "data-id": String(id) },
            h("div", { class: "row" }, h("strong", { class: "mono" }, request.kind), h("span", { class: "muted mono" }, `#${id}`)),
            h("pre", {}, JSON.stringify(request.payload)),
            result,
            h("div", { class: "row" }, respond, failMessage, fail));
    });
    // Keep what the person is typing in requests that are still open.
    const open = new Set([...requests.keys()].map(String));
    for (const item of $$(".request-item", requestList)) if (!open.has(item.dataset.id)) item.remove();
    const present = new Set($$(".request-item", requestList).map((item) => item.dataset.id));
    for (const item of items) if (!present.has(item.dataset.id)) requestList.append(item);
    if (requests.size === 0) requestList.replaceChildren(h("p", { class: "small muted" }, "No open requests."));
    else $$("p", requestList).forEach((p) => p.remove());
}

$('[data-test="advance"]').addEventListener("click", () => {
    const seconds = $('[data-test="advance-seconds"]').valueAsNumber;
    if (!Number.isFinite(seconds) || seconds < 0) {
        page.showError(new FusionError("PAGE_INVALID_FIELD", "seconds: a number ≥ 0"));
        return;
    }
    if (!page.instance) {
        page.showError(new FusionError("PAGE_NO_INSTANCE", "there is no instance whose clock to advance"));
        return;
    }
    page.instance.advanceClock(seconds).then(
        ({ version }) => note(`⏱ +${seconds} s  ✓ v${version}`),
        (error) => {
            note(`⏱ +${seconds} s  ✗ ${error.status}`, true);
            page.showError(error);
        },
    );
});

// ---------------------------------------------------------------------------------
// Creation options

/** @param {CreateOptions | undefined} options */
function fillOptionsForm(options) {
    $('[data-test="opt-seed"]').value = options?.seed ?? "";
    $('[data-test="opt-manual-clock"]').checked = options?.clock === "manual";
    $('[data-test="opt-host-requests"]').checked = options?.requests === "host";
    $('[data-test="opt-settings"]').value = options?.settings ? JSON.stringify(options.settings) : "";
    $('[data-test="opt-key"]').value = params.get("key") ?? "";
}

$('[data-test="options-form"]').addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    // The form is in the workbench, shown only for a feature.
    const next = new URLSearchParams({ feature: /** @type {string} */ (featureName) });
    const seed = $('[data-test="opt-seed"]').value.trim();
    if (seed !== "") next.set("seed", seed);
    if ($('[data-test="opt-manual-clock"]').checked) next.set("clock", "manual");
    if ($('[data-test="opt-host-requests"]').checked) next.set("requests", "host");
    const settings = $('[data-test="opt-settings"]').value.trim();
    if (settings !== "") {
        try {
            const parsed = JSON.parse(settings);
            if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not a JSON object");
            next.set("settings", JSON.stringify(parsed));
        } catch (error) {
            page.showError(new FusionError("PAGE_INVALID_JSON", `settings: ${/** @type {Error} */ (error).message}`));
            return;
        }
    }
    const key = $('[data-test="opt-key"]').value.trim();
    if (key !== "") next.set("key", key);
    location.search = next.toString();
});

// ---------------------------------------------------------------------------------
// Start

/** @param {import("/fusionkit.js").Manifest} manifest */
function showPicker(manifest) {
    $('[data-role="picker"]').hidden = false;
    setText($('[data-test="feature-name"]'), "Pick a feature");
    $('[data-role="picker-list"]').replaceChildren(...manifest.features.map((feature) =>
        h("a", { class: "btn secondary", "data-test": "pick-feature", "data-name": feature.name, href: `/feature.html?feature=${encodeURIComponent(feature.name)}` }, feature.name)));
    page.markReady();
}

/** @param {Instance} instance */
function attach(instance) {
    page.attach(instance, { render: drawState });
    setText($('[data-test="instance-id"]'), instance.id);
    instance.onRequests(drawRequests);
}

async function start() {
    const bridge = await page.connect();
    const manifest = await bridge.manifest();
    if (!featureName) {
        showPicker(manifest);
        return;
    }
    const feature = manifest.features.find((candidate) => candidate.name === featureName);
    if (!feature) {
        page.showError(new FusionError("FK_ERR_UNKNOWN_FEATURE", `The library has no feature "${featureName}".`));
        showPicker(manifest);
        return;
    }
    document.title = `${feature.name} · FusionKit`;
    setText($('[data-test="feature-name"]'), feature.name);
    setText($('[data-test="summary"]'), feature.summary ?? "");

    const options = optionsFromQuery();
    // Without ?key=, bridge.instance names it from the feature and options (instanceKey),
    // as every demo page does: the same options find the same instance.
    const key = params.get("key") ?? undefined;
    setText($('[data-test="options"]'), options ? JSON.stringify(options) : "none");
    fillOptionsForm(options);
    hostRequests = options?.requests === "host";
    $('[data-test="clock"]').hidden = options?.clock !== "manual";

    $('[data-test="inputs"]').replaceChildren(...feature.inputs.map(inputForm));
    $('[data-role="workbench"]').hidden = false;

    attach(await bridge.instance(feature.name, { key, options }));

    $('[data-test="restart"]').addEventListener("click", async () => {
        const old = page.instance;
        try {
            if (old) {
                page.destroying.add(old);
                await old.destroy();
            }
            previousState = undefined;
            expanded.clear();
            attach(await bridge.instance(feature.name, { key, options }));
            note(`↻ restarted: ${/** @type {Instance} */ (page.instance).id}`);
        } catch (error) {
            page.showError(error);
        }
    });
}

start().catch(page.showError);
