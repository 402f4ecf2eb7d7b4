// What every demo page shares: the status line, the error area, creation options
// from the query string, and small DOM helpers. No feature logic lives here: pages
// send inputs and draw the state they are given.

import { connect, FusionError } from "/fusionkit.js";

export { FusionError };

/** @typedef {import("/fusionkit.js").JSONValue} JSONValue */
/** @typedef {import("/fusionkit.js").CreateOptions} CreateOptions */
/** @typedef {import("/fusionkit.js").AnyFeatures} AnyFeatures */
/**
 * The instance of feature N of the feature map F, as a page holds it.
 * @template {import("/fusionkit.js").FeatureMap<F>} F
 * @template {keyof F & string} N
 * @typedef {import("/fusionkit.js").Instance<F[N]["state"], F[N]["input"]>} FeatureInstance
 */

// `any`, not Element: the pages find their elements by the data-test names their markup
// has, and what the types guard is the feature's state and inputs, not the markup.
/** @param {string} selector @param {ParentNode} [root] @returns {any} */
export const $ = (selector, root = document) => root.querySelector(selector);
/** @param {string} selector @param {ParentNode} [root] @returns {any[]} */
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** @typedef {string | number | boolean | null | undefined | ((event: any) => void)} Prop */
/** @typedef {Node | string | number | boolean | null | undefined} Leaf */
/** @typedef {Leaf | Array<Leaf | Leaf[]>} Child (lists, as map() gives them, nested once: a list of pairs) */

/**
 * A DOM element: h("button", {class: "btn", "data-test": "increase", onclick}, "+").
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {{[name: string]: Prop} | null} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(props ?? {})) {
        if (value === undefined || value === null || value === false) continue;
        if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
        else if (name === "class") element.className = /** @type {string} */ (value);
        else if (name === "text") element.textContent = /** @type {string} */ (value);
        // A property of the element (hidden, rows, value...), set by name.
        else if (name in element && typeof value !== "string") /** @type {any} */ (element)[name] = value;
        else element.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
        if (child === null || child === undefined || child === false) continue;
        element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return element;
}

/**
 * Sets text only when it changed (keeps selections and avoids needless layout).
 * @param {Node} element
 * @param {string | number | boolean} text
 */
export function setText(element, text) {
    const value = String(text);
    if (element.textContent !== value) element.textContent = value;
}

// ---------------------------------------------------------------------------------
// Creation options from the query string

/**
 * A query value as JSON when it reads as JSON the way the library reads it (false, 3,
 * {"a":1}), else as text: an object with a key twice is text, since the library refuses
 * it where JSON.parse would keep the last (docs/rules/input-shorthand.md).
 * @param {string} raw
 * @returns {JSONValue}
 */
function parseValue(raw) {
    let value;
    try {
        value = JSON.parse(raw);
    } catch {
        return raw;
    }
    return raw.includes("{") && hasDuplicateKey(raw) ? raw : value;
}

/**
 * Whether valid JSON text has an object with the same key twice.
 * @param {string} text
 * @returns {boolean}
 */
function hasDuplicateKey(text) {
    const open = []; // per open container: its keys (an object) or null (an array)
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c === "{") open.push(new Set());
        else if (c === "[") open.push(null);
        else if (c === "}" || c === "]") open.pop();
        else if (c === '"') {
            let end = i + 1;
            while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
            let next = end + 1;
            while (" \t\n\r".includes(text[next])) next++;
            const keys = open[open.length - 1];
            if (keys && text[next] === ":") {
                const key = JSON.parse(text.slice(i, end + 1));
                if (keys.has(key)) return true;
                keys.add(key);
            }
            i = end;
        }
    }
    return false;
}

/** Parameters that are the page's own, not creation options. */
const PAGE_PARAMETERS = new Set(["feature", "key", "transport"]);

/**
 * Creation options from the query string: `seed`, `clock`, `requests`, `state` (JSON),
 * `settings` (a JSON object); any other parameter is a feature setting
 * (`?liveScan=false` → {"settings": {"liveScan": false}}). `base` holds what the page
 * always asks for. Undefined when there are none.
 * @param {string} [search]
 * @param {CreateOptions} [base]
 * @returns {CreateOptions | undefined}
 */
export function optionsFromQuery(search = location.search, base = {}) {
    const params = new URLSearchParams(search);
    const options = { ...base };
    const settings = { ...(base.settings ?? {}) };
    for (const [name, raw] of params) {
        if (PAGE_PARAMETERS.has(name) || raw === "" && name !== "state") continue;
        switch (name) {
            case "seed":
                options.seed = Number(raw);
                break;
            case "clock":
            case "requests":
                options[name] = raw;
                break;
            case "state":
                options.state = JSON.parse(raw); // a bad one is shown as an error by the page
                break;
            case "settings":
                Object.assign(settings, JSON.parse(raw));
                break;
            default:
                settings[name] = parseValue(raw);
        }
    }
    delete options.settings;
    if (Object.keys(settings).length > 0) options.settings = settings;
    return Object.keys(options).length > 0 ? options : undefined;
}

// ---------------------------------------------------------------------------------
// Where the feature runs: on the bridge, or in the page

/** The example library's WebAssembly module, beside the pages (scripts/build-wasm). */
export const WASM_MODULE = "/FusionExamples.wasm";
/** Where the choice is kept for the tab, so the other pages follow it. */
const TRANSPORT_KEY = "fusionkit.transport";

/**
 * Where the page runs its feature: "wasm" (in the page, from WASM_MODULE: no server) or
 * "bridge" (fusion serve). `?transport=` chooses, and the choice stays for the tab;
 * without one, what the tab chose last, else the bridge.
 * @param {string} [search]
 * @returns {"wasm" | "bridge"}
 */
export function chosenTransport(search = location.search) {
    const asked = new URLSearchParams(search).get("transport");
    if (asked === "wasm" || asked === "bridge") {
        try {
            sessionStorage.setItem(TRANSPORT_KEY, asked);
        } catch {
            // storage denied: the query still decides this page
        }
        return asked;
    }
    try {
        const kept = sessionStorage.getItem(TRANSPORT_KEY);
        if (kept === "wasm" || kept === "bridge") return kept;
    } catch {
        // storage denied
    }
    return "bridge";
}

// ---------------------------------------------------------------------------------
// The page chrome: status line and error area (markup in each page's HTML)

/** Builds the chrome every page shares in place of its `<header data-role="chrome">`:
 *  the top bar (back link, connection status, session, version) and the error area.
 *  `data-home` on the placeholder: the index's bar (no back link, no version);
 *  `data-error-test`: the error area's test hook, "error" unless the page needs that name. */
function buildChrome() {
    const placeholder = $('[data-role="chrome"]');
    if (!placeholder) return;
    const home = placeholder.hasAttribute("data-home");
    const bar = h("header", { class: "topbar" },
        home ? h("a", { class: "back", href: "/" }, "FusionKit") : h("a", { class: "back", href: "/", "data-test": "back" }, "← Features"),
        h("div", { class: "status-line" },
            h("span", { class: "status", "data-role": "status", "data-test": "status", "data-status": "connecting" }, "connecting"),
            h("span", { class: "sep" }, "·"), " session ", h("code", { "data-role": "session", "data-test": "session" }, "–"),
            home ? null : [h("span", { class: "sep" }, "·"), " version ", h("code", { "data-role": "version", "data-test": "version" }, "–")],
            h("span", { class: "sep" }, "·"), transportToggle()));
    const errorArea = h("div", { class: "server-error", "data-role": "server-error", "data-test": placeholder.dataset.errorTest ?? "error", role: "alert", hidden: true },
        h("span", { class: "error-status" }), " ", h("span", { class: "error-message" }),
        // Shown for BRIDGE_UNAUTHENTICATED: the bridge (fusion serve --auth jwt) wants a
        // token, which the team's login issues (/login, as scripts/cluster --auth routes it).
        h("a", { class: "btn small", href: "/login", "data-test": "sign-in", hidden: true }, "Sign in"), " ",
        h("button", { class: "icon-button", "data-test": "close-error", "aria-label": "Dismiss error" }, "×"));
    placeholder.replaceWith(bar, errorArea);
}

/** The switch between the two transports: a link to this page with the other one. */
function transportToggle() {
    const transport = chosenTransport();
    const other = transport === "wasm" ? "bridge" : "wasm";
    const params = new URLSearchParams(location.search);
    params.set("transport", other);
    return h("a", {
        class: "transport", "data-test": "transport", "data-transport": transport, href: `?${params}`,
        title: transport === "wasm" ? "Runs in this page (WebAssembly). Switch to the bridge." : "Runs on the bridge (fusion serve). Switch to this page.",
    }, transport === "wasm" ? "in page" : "on bridge");
}

/**
 * A page's bridge and its instance of one feature. A demo page names its feature's types,
 * declaring `const page = new Page()` with the type `Page<Features, "wifi">`, so that what
 * it sends and the state it draws are checked against them; the generic pages take any.
 * @template {import("/fusionkit.js").FeatureMap<F>} [F=AnyFeatures]
 * @template {keyof F & string} [N=keyof F & string]
 */
export class Page {
    constructor() {
        buildChrome();
        /** @type {HTMLElement | null} */
        this.statusElement = $('[data-role="status"]');
        /** @type {HTMLElement | null} */
        this.sessionElement = $('[data-role="session"]');
        /** @type {HTMLElement | null} */
        this.versionElement = $('[data-role="version"]');
        /** @type {HTMLElement | null} */
        this.errorElement = $('[data-role="server-error"]');
        this.errorStatus = this.errorElement?.querySelector(".error-status");
        this.errorMessage = this.errorElement?.querySelector(".error-message");
        this.errorElement?.querySelector("button")?.addEventListener("click", () => this.clearError());
        /** @type {import("/fusionkit.js").Bridge<F> | null} */
        this.bridge = null;
        /** @type {FeatureInstance<F, N> | null} */
        this.instance = null;
        /** Instances the page destroys itself: no notice for those.
         *  @type {WeakSet<FeatureInstance<F, N>>} */
        this.destroying = new WeakSet();
        this.showError = this.showError.bind(this);
    }

    /** @param {import("/fusionkit.js").Status} status */
    setStatus(status) {
        if (!this.statusElement) return;
        this.statusElement.dataset.status = status;
        setText(this.statusElement, status);
    }

    /**
     * Shows an error in the page's error area: the server's status and message.
     * @param {unknown} error a FusionError, another Error, or whatever a promise rejected with
     */
    showError(error) {
        console.error(error);
        if (!this.errorElement) return;
        const status = error instanceof FusionError ? error.status : /** @type {Partial<Error> | null | undefined} */ (error)?.name ?? "Error";
        const message = /** @type {Partial<Error> | null | undefined} */ (error)?.message ?? String(error);
        // Both are built with the error area (buildChrome).
        setText(/** @type {Element} */ (this.errorStatus), status);
        setText(/** @type {Element} */ (this.errorMessage), message);
        this.errorElement.dataset.status = status;
        const signIn = /** @type {HTMLElement | null} */ (this.errorElement.querySelector('[data-test="sign-in"]'));
        if (signIn) signIn.hidden = status !== "BRIDGE_UNAUTHENTICATED";
        this.errorElement.hidden = false;
        // Where the person looks: an error caused low on a long page would otherwise
        // appear above the window, and nothing they see would change.
        // ("instant" is newer than TypeScript 4.8's ScrollBehavior.)
        this.errorElement.scrollIntoView({ block: "nearest", behavior: /** @type {ScrollBehavior} */ ("instant") });
        // Restart the attention animation.
        this.errorElement.classList.remove("flash");
        void this.errorElement.offsetWidth;
        this.errorElement.classList.add("flash");
    }

    clearError() {
        if (!this.errorElement) return;
        this.errorElement.hidden = true;
        delete this.errorElement.dataset.status;
    }

    /**
     * Connects; the status line follows the bridge.
     * @returns {Promise<import("/fusionkit.js").Bridge<F>>}
     */
    async connect() {
        this.setStatus("connecting");
        try {
            this.bridge = chosenTransport() === "wasm" ? await connect({ wasm: WASM_MODULE }) : await connect();
        } catch (error) {
            this.setStatus("closed");
            this.showError(error);
            throw error;
        }
        this.bridge.onStatus((status) => this.setStatus(status));
        this.bridge.onError(this.showError);
        if (this.sessionElement) {
            const session = this.bridge.session ?? "";
            setText(this.sessionElement, session ? `${session.slice(0, 8)}…` : this.bridge.transport === "wasm" ? "this page" : "–");
            this.sessionElement.title = session;
        }
        this.bridge.onStatus(() => {
            const session = /** @type {import("/fusionkit.js").Bridge<F>} */ (this.bridge).session ?? "";
            if (this.sessionElement && this.sessionElement.title !== session) {
                setText(this.sessionElement, session ? `${session.slice(0, 8)}…` : "–");
                this.sessionElement.title = session;
            }
        });
        return this.bridge;
    }

    /**
     * Connects and gets the page's instance (`bridge.instance`: a reload finds it again),
     * then attach()es it.
     * @param {N} feature
     * @param {{options?: CreateOptions, key?: string, render?: (state: F[N]["state"], version: number) => void, ready?: boolean}} how
     * @returns {Promise<FeatureInstance<F, N>>}
     */
    async open(feature, { options, key, render, ready = true } = {}) {
        await this.connect();
        let instance;
        try {
            // Without a key the bridge client names the instance from the feature and the
            // options (instanceKey in fusionkit.js), so a reload finds it again.
            instance = await /** @type {import("/fusionkit.js").Bridge<F>} */ (this.bridge).instance(feature, { key, options });
        } catch (error) {
            this.showError(error);
            throw error;
        }
        this.attach(instance, { render, ready });
        return instance;
    }

    /**
     * `open` with the creation options of the page's query string (optionsFromQuery):
     * a query that is not valid is shown in the error area and the page opens without
     * options; a failure to open is shown there too (the promise then resolves to null).
     * @param {N} feature
     * @param {(state: F[N]["state"], version: number) => void} render
     * @returns {Promise<FeatureInstance<F, N> | null>}
     */
    openFromQuery(feature, render) {
        /** @type {CreateOptions | undefined} */
        let options;
        try {
            options = optionsFromQuery();
        } catch (error) {
            this.showError(error);
        }
        return this.open(feature, { options, render }).catch(() => null);
    }

    /**
     * Makes `instance` the page's: `render(state, version)` draws every state, the
     * status line's version follows, and `document.body.dataset.ready` becomes "true"
     * after the first draw (unless `ready: false`: then the page calls markReady()).
     * @param {FeatureInstance<F, N>} instance
     * @param {{render?: (state: F[N]["state"], version: number) => void, ready?: boolean}} how
     */
    attach(instance, { render, ready = true } = {}) {
        this.instance = instance;
        if (render) instance.onState(render);
        instance.onState((_, version) => {
            if (this.instance !== instance) return;
            if (this.versionElement) setText(this.versionElement, version);
            if (ready) this.markReady();
        });
        instance.onDestroyed(() => {
            if (this.instance !== instance || this.destroying.has(instance)) return;
            this.showError(new FusionError("DESTROYED", "This instance was destroyed (by another tab of this session?). Reload to make a new one."));
        });
    }

    markReady() {
        // The first state drawn, as a mark a benchmark reads (time since navigation).
        if (document.body.dataset.ready !== "true") performance.mark("fusionkit:first-state");
        document.body.dataset.ready = "true";
    }

    /**
     * Sends an input; a refusal is shown in the error area. Returns the send's promise
     * (resolving to undefined when refused).
     * @param {F[N]["input"]} input
     * @returns {Promise<{version: number} | void>}
     */
    send(input) {
        if (!this.instance) return Promise.resolve();
        return this.instance.send(input).catch(this.showError);
    }
}

// ---------------------------------------------------------------------------------
// Controls drawn from state

/**
 * A text field whose value is the state's, while the person types into it: each input
 * event sends `makeInput(value)`; the state's value is written back only once every
 * edit sent has been acknowledged, so fast typing never loses characters.
 * Returns sync(value), to call from render.
 * @template {import("/fusionkit.js").FeatureMap<F>} F
 * @template {keyof F & string} N
 * @param {HTMLInputElement | HTMLTextAreaElement} field
 * @param {Page<F, N>} page
 * @param {(value: string) => F[N]["input"]} makeInput
 * @returns {(value: string | null | undefined) => void}
 */
export function bindTextField(field, page, makeInput) {
    let inFlight = 0;
    let latest = field.value;
    const sync = (/** @type {string | null | undefined} */ value) => {
        latest = value ?? "";
        if (inFlight === 0 && field.value !== latest) field.value = latest;
    };
    field.addEventListener("input", () => {
        inFlight++;
        page.send(makeInput(field.value)).finally(() => {
            inFlight--;
            sync(latest);
        });
    });
    return sync;
}

/**
 * Shows a <dialog> as a modal while `open`, closes it otherwise. When the person closes
 * it themselves (Escape), `onDismiss` sends the input that says so; the state decides.
 * @param {HTMLDialogElement} dialog
 * @param {boolean} open
 */
export function setDialog(dialog, open) {
    if (open && !dialog.open) {
        dialog.showModal();
    } else if (!open && dialog.open) {
        dialog.dataset.closing = "render";
        dialog.close();
    }
}

/**
 * @param {HTMLDialogElement} dialog
 * @param {() => void} onDismiss
 */
export function onDialogDismiss(dialog, onDismiss) {
    dialog.addEventListener("cancel", (event) => {
        if (!event.cancelable) return; // the browser closes it anyway: `close` sends
        event.preventDefault();
        onDismiss();
    });
    dialog.addEventListener("close", () => {
        const byRender = dialog.dataset.closing === "render";
        delete dialog.dataset.closing;
        if (!byRender) onDismiss();
    });
}
