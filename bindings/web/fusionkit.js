// fusionkit.js: the browser client of `fusion serve`.
//
// One ES module, no dependencies. It speaks the WebSocket protocol of
// docs/web-protocol.md: a session kept in sessionStorage and rejoined after a dropped
// connection, instances whose state it holds and keeps current from `state` and
// `patch` messages (checking versions, asking for `resync` when it lost track), host
// requests, and replies matched to the calls that asked for them.
//
//     import { connect } from "/fusionkit.js";
//     const bridge = await connect();
//     const counter = await bridge.instance("counter");
//     counter.onState((state, version) => render(state));
//     button.onclick = () => counter.send("increase");

const STORAGE_KEY = "fusionkit.session";
const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;
/** The server closes with this when it has too many sessions: try again later, not now. */
const CLOSE_TRY_AGAIN_LATER = 1013;
const CLOSE_NORMAL = 1000;

// ---------------------------------------------------------------------------------
// Errors

/** A refusal: from the server (`status` as in the protocol, `re` the refused message's
 *  id) or from this module (`CLIENT_…` statuses, `re` null). */
export class FusionError extends Error {
    constructor(status, message, re = null) {
        super(message);
        this.name = "FusionError";
        this.status = status;
        this.re = re;
    }
}

/** A JSON Patch that cannot be applied to the document it was given. */
export class PatchError extends Error {
    constructor(message) {
        super(message);
        this.name = "PatchError";
    }
}

// ---------------------------------------------------------------------------------
// JSON Pointer (RFC 6901) and JSON Patch (RFC 6902)

/** The reference tokens of a JSON Pointer: "" is the whole document, "/a~1b/0" is ["a/b", "0"]. */
export function parsePointer(pointer) {
    if (typeof pointer !== "string") throw new PatchError(`a pointer is a string, not ${typeof pointer}`);
    if (pointer === "") return [];
    if (pointer[0] !== "/") throw new PatchError(`the pointer "${pointer}" does not start with "/"`);
    if (/~(?![01])/.test(pointer)) throw new PatchError(`the pointer "${pointer}" has a "~" not followed by 0 or 1`);
    return pointer.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const isContainer = (value) => value !== null && typeof value === "object";

/** A key as an own data property, even "__proto__". */
function setKey(object, key, value) {
    if (key === "__proto__") {
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    } else {
        object[key] = value;
    }
}

function shallowCopy(value) {
    if (Array.isArray(value)) return value.slice();
    const copy = {};
    for (const key of Object.keys(value)) setKey(copy, key, value[key]);
    return copy;
}

function deepCopy(value) {
    if (!isContainer(value)) return value;
    if (Array.isArray(value)) return value.map(deepCopy);
    const copy = {};
    for (const key of Object.keys(value)) setKey(copy, key, deepCopy(value[key]));
    return copy;
}

/** Equality as JSON sees it: same type, same members, object keys in any order. */
export function jsonEqual(a, b) {
    if (a === b) return true;
    if (!isContainer(a) || !isContainer(b)) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) {
        if (a.length !== b.length) return false;
        for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
        return true;
    }
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) if (!hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false;
    return true;
}

/** An array index token: "0" or digits without a leading zero. */
function arrayIndex(token, array, pointer, allowEnd) {
    if (allowEnd && token === "-") return array.length;
    if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`"${token}" in "${pointer}" is not an array index`);
    const index = Number(token);
    const limit = allowEnd ? array.length : array.length - 1;
    if (index > limit) throw new PatchError(`index ${index} in "${pointer}" is out of range (length ${array.length})`);
    return index;
}

/**
 * Applies a JSON Patch (RFC 6902: add, remove, replace, move, copy, test) and returns
 * the new document. The document given is never changed: containers on the paths the
 * patch touches are copied, everything else is shared. A patch that fails (a missing
 * path, a failed `test`) throws a PatchError and leaves nothing half done.
 */
export function applyPatch(document, patch) {
    if (!Array.isArray(patch)) throw new PatchError("a patch is an array of operations");
    // Containers made by this call: only these may be changed in place.
    const owned = new WeakSet();
    let root = document;

    const own = (value) => {
        const copy = shallowCopy(value);
        owned.add(copy);
        return copy;
    };

    const get = (pointer) => {
        let node = root;
        for (const token of parsePointer(pointer)) {
            if (Array.isArray(node)) {
                node = node[arrayIndex(token, node, pointer, false)];
            } else if (isContainer(node) && hasOwn(node, token)) {
                node = node[token];
            } else {
                throw new PatchError(`"${pointer}" does not exist`);
            }
        }
        return node;
    };

    // The container holding the pointer's last token, made ours along the way.
    const parentOf = (tokens, pointer) => {
        if (!isContainer(root)) throw new PatchError(`"${pointer}" does not exist: the document is not a container`);
        if (!owned.has(root)) root = own(root);
        let node = root;
        for (let i = 0; i < tokens.length - 1; i++) {
            const token = tokens[i];
            let key;
            if (Array.isArray(node)) key = arrayIndex(token, node, pointer, false);
            else if (hasOwn(node, token)) key = token;
            else throw new PatchError(`"${pointer}" does not exist`);
            let child = node[key];
            if (!isContainer(child)) throw new PatchError(`"${pointer}" does not exist: "${token}" is not a container`);
            if (!owned.has(child)) {
                child = own(child);
                if (Array.isArray(node)) node[key] = child;
                else setKey(node, key, child);
            }
            node = child;
        }
        return node;
    };

    const add = (pointer, value) => {
        const tokens = parsePointer(pointer);
        if (tokens.length === 0) {
            root = value;
            return;
        }
        const parent = parentOf(tokens, pointer);
        const last = tokens[tokens.length - 1];
        if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent, pointer, true), 0, value);
        else setKey(parent, last, value);
    };

    const remove = (pointer) => {
        const tokens = parsePointer(pointer);
        if (tokens.length === 0) throw new PatchError("cannot remove the whole document");
        const parent = parentOf(tokens, pointer);
        const last = tokens[tokens.length - 1];
        if (Array.isArray(parent)) {
            return parent.splice(arrayIndex(last, parent, pointer, false), 1)[0];
        }
        if (!hasOwn(parent, last)) throw new PatchError(`"${pointer}" does not exist`);
        const value = parent[last];
        delete parent[last];
        return value;
    };

    const replace = (pointer, value) => {
        const tokens = parsePointer(pointer);
        if (tokens.length === 0) {
            root = value;
            return;
        }
        const parent = parentOf(tokens, pointer);
        const last = tokens[tokens.length - 1];
        if (Array.isArray(parent)) {
            parent[arrayIndex(last, parent, pointer, false)] = value;
        } else {
            if (!hasOwn(parent, last)) throw new PatchError(`"${pointer}" does not exist`);
            setKey(parent, last, value);
        }
    };

    for (const operation of patch) {
        if (!isContainer(operation)) throw new PatchError("an operation is an object");
        const { op, path } = operation;
        if (typeof path !== "string") throw new PatchError(`operation "${op}" has no "path"`);
        const needsValue = op === "add" || op === "replace" || op === "test";
        if (needsValue && !hasOwn(operation, "value")) throw new PatchError(`operation "${op}" at "${path}" has no "value"`);
        const needsFrom = op === "move" || op === "copy";
        if (needsFrom && typeof operation.from !== "string") throw new PatchError(`operation "${op}" at "${path}" has no "from"`);
        switch (op) {
            case "add":
                add(path, operation.value);
                break;
            case "remove":
                remove(path);
                break;
            case "replace":
                replace(path, operation.value);
                break;
            case "move": {
                const from = operation.from;
                if (path === from) {
                    get(from);
                    break;
                }
                if (path.startsWith(from + "/")) throw new PatchError(`cannot move "${from}" into its own child "${path}"`);
                add(path, remove(from));
                break;
            }
            case "copy":
                // A copy is a new value: two places never share a container this call may change.
                add(path, deepCopy(get(operation.from)));
                break;
            case "test":
                if (!jsonEqual(get(path), operation.value)) throw new PatchError(`test failed at "${path}"`);
                break;
            default:
                throw new PatchError(`unknown operation "${op}"`);
        }
    }
    return root;
}

// ---------------------------------------------------------------------------------
// Helpers

function report(error) {
    if (typeof globalThis.reportError === "function") globalThis.reportError(error);
    else console.error(error);
}

/** Calls every listener; one that throws does not stop the others or the module. */
function emit(listeners, ...args) {
    for (const listener of [...listeners]) {
        try {
            listener(...args);
        } catch (error) {
            report(error);
        }
    }
}

function defaultURL() {
    const location = globalThis.location;
    if (!location || !location.host) throw new FusionError("CLIENT_NO_URL", "connect() needs a URL outside a page served over http(s)");
    return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
}

/** A relative URL ("/ws") made absolute against the page, with ws: or wss:. */
function absoluteURL(url) {
    if (/^wss?:/i.test(url) || !globalThis.location) return url;
    const absolute = new URL(url, globalThis.location.href);
    if (absolute.protocol === "http:") absolute.protocol = "ws:";
    if (absolute.protocol === "https:") absolute.protocol = "wss:";
    return absolute.href;
}

function withSession(url, session) {
    if (!session) return url;
    return `${url}${url.includes("?") ? "&" : "?"}session=${encodeURIComponent(session)}`;
}

function defaultStorage() {
    try {
        return globalThis.sessionStorage ?? null;
    } catch {
        return null; // storage denied (a sandboxed frame, a privacy setting)
    }
}

function readStorage(storage, key) {
    try {
        return storage?.getItem(key) ?? null;
    } catch {
        return null;
    }
}

function writeStorage(storage, key, value) {
    try {
        storage?.setItem(key, value);
    } catch {
        // Full or denied: the session still works, it just will not survive a reload.
    }
}

/** An input as the protocol wants it: "increase", {"answerChanged": {"text": "hi"}}. */
function normalizeInput(input, fields) {
    if (typeof input === "string") return fields === undefined ? input : { [input]: fields };
    if (isContainer(input) && !Array.isArray(input) && fields === undefined) return input;
    throw new TypeError("send() takes an input name, an input object, or a name and its fields");
}

function messageOf(error) {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === "string") return error;
    try {
        return JSON.stringify(error) ?? String(error);
    } catch {
        return String(error);
    }
}

const notConnected = () => new FusionError("CLIENT_NOT_CONNECTED", "not connected to the server (reconnecting)");

// ---------------------------------------------------------------------------------
// Connecting

/**
 * Opens a bridge to `fusion serve`. `url` defaults to ws(s)://<this page's host>/ws.
 * Resolves once the server has welcomed the session; rejects if that first connection
 * fails. Later drops are handled by reconnecting with the same session.
 */
export async function connect(url, options = {}) {
    const bridge = new Bridge(absoluteURL(url ?? defaultURL()), options);
    await bridge._start();
    return bridge;
}

export class Bridge {
    constructor(url, options = {}) {
        /** The WebSocket URL, without the session parameter. */
        this.url = url;
        /** The session id (32 hex digits), from the last welcome. */
        this.session = null;
        /** The library the server hosts: {name, version, abiVersion}. */
        this.library = null;
        /** The server's limits: {maxMessageBytes, messagesPerSecond, instancesPerSession}. */
        this.limits = null;
        /** "connecting", "open", "reconnecting" or "closed". */
        this.status = "connecting";

        this._WebSocket = options.WebSocket ?? globalThis.WebSocket;
        if (typeof this._WebSocket !== "function") throw new FusionError("CLIENT_NO_WEBSOCKET", "no WebSocket in this environment");
        this._storage = options.storage === undefined ? defaultStorage() : options.storage;
        this._storageKey = options.storageKey ?? STORAGE_KEY;
        this._reconnect = options.reconnect ?? true;
        this._minDelay = options.minDelay ?? MIN_DELAY_MS;
        this._maxDelay = options.maxDelay ?? MAX_DELAY_MS;
        this._delay = this._minDelay;
        this._initialSession = options.session !== undefined ? options.session : readStorage(this._storage, this._storageKey);

        this._socket = null;
        this._welcomed = false; // the current socket has had its welcome
        this._closedByPage = false;
        this._timer = null;
        this._first = null; // connect()'s promise, until the first welcome
        this._lastRefusal = null; // an error with re: null, the reason a close may give
        this._nextId = 1;
        this._pending = new Map(); // call id → {resolve, reject}
        /** Where server messages go: instance id → Instance (the page's, and the
         *  session's others, kept as plain records so a later create finds them current). */
        this._table = new Map();
        /** The instances the page holds (from create/instance), not destroyed. */
        this._owned = new Set();
        this._statusListeners = new Set();
        this._errorListeners = new Set();
    }

    // -- Public API --------------------------------------------------------------

    /** The library's manifest: features, their inputs with fields and types, state schemas. */
    async manifest() {
        const reply = await this._call({ type: "manifest" });
        return reply.manifest;
    }

    /** A new instance of `feature` (always new; with `key` it is named by it). */
    create(feature, { key, options } = {}) {
        return this._create(feature, key, options, false);
    }

    /** The instance named `key` (default: the feature's name), made if the session has
     *  none: after a reload the page gets its instance back. `options` apply only when
     *  it is made. */
    instance(feature, { key = feature, options } = {}) {
        return this._create(feature, key, options, true);
    }

    /** Calls fn(status) now and on every change; returns a function that stops it. */
    onStatus(fn) {
        this._statusListeners.add(fn);
        try {
            fn(this.status);
        } catch (error) {
            report(error);
        }
        return () => this._statusListeners.delete(fn);
    }

    /** Calls fn(error) for errors no pending call receives: refusals with no id, a
     *  session limit, failed automatic resyncs, answers to host requests that failed. */
    onError(fn) {
        this._errorListeners.add(fn);
        return () => this._errorListeners.delete(fn);
    }

    /** Closes the connection for good: no reconnecting. Pending calls reject. */
    close() {
        this._closedByPage = true;
        if (this._timer !== null) clearTimeout(this._timer);
        this._timer = null;
        const socket = this._socket;
        this._socket = null;
        this._welcomed = false;
        this._failPending(new FusionError("CLIENT_CLOSED", "the bridge was closed"));
        for (const instance of this._table.values()) instance._disconnected();
        for (const instance of this._owned) instance._disconnected();
        if (socket) {
            try {
                socket.close(CLOSE_NORMAL);
            } catch {
                // already closing
            }
        }
        this._setStatus("closed");
        if (this._first) {
            const first = this._first;
            this._first = null;
            first.reject(new FusionError("CLIENT_CLOSED", "the bridge was closed before it connected"));
        }
    }

    // -- Connection ----------------------------------------------------------------

    _start() {
        return new Promise((resolve, reject) => {
            this._first = { resolve, reject };
            this._open();
        });
    }

    _open() {
        this._timer = null;
        if (this._closedByPage) return;
        const session = this.session ?? this._initialSession;
        let socket;
        try {
            socket = new this._WebSocket(withSession(this.url, session));
        } catch (error) {
            this._socket = null;
            this._closed(null, { code: 0, reason: messageOf(error) });
            return;
        }
        this._socket = socket;
        this._welcomed = false;
        socket.onmessage = (event) => this._received(socket, event.data);
        socket.onclose = (event) => this._closed(socket, event);
        socket.onerror = () => {}; // a close event follows, with the code
    }

    _isOpen() {
        return this._socket !== null && this._welcomed && this._socket.readyState === 1;
    }

    _closed(socket, event) {
        if (socket !== null && socket !== this._socket) return; // an old socket, or closed by close()
        this._socket = null;
        this._welcomed = false;
        const code = event?.code ?? 0;
        this._failPending(new FusionError("CLIENT_DISCONNECTED", `the connection closed before the reply (code ${code})`));
        for (const instance of this._table.values()) instance._disconnected();
        for (const instance of this._owned) instance._disconnected();
        if (this._closedByPage) return;

        if (this._first) {
            const first = this._first;
            this._first = null;
            this._setStatus("closed");
            const reason = event?.reason ? `: ${event.reason}` : "";
            first.reject(this._lastRefusal ?? new FusionError("CLIENT_CONNECT_FAILED", `could not connect to ${this.url} (code ${code}${reason})`));
            return;
        }
        if (code === CLOSE_TRY_AGAIN_LATER || !this._reconnect) {
            this._setStatus("closed");
            if (code === CLOSE_TRY_AGAIN_LATER && !this._lastRefusal) {
                this._emitError(new FusionError("BRIDGE_SESSION_LIMIT", event?.reason || "the server has too many sessions"));
            }
            return;
        }
        this._setStatus("reconnecting");
        const delay = this._delay;
        this._delay = Math.min(this._delay * 2, this._maxDelay);
        this._timer = setTimeout(() => this._open(), delay);
    }

    _setStatus(status) {
        if (this.status === status) return;
        this.status = status;
        emit(this._statusListeners, status);
    }

    _emitError(error) {
        if (this._errorListeners.size === 0) console.warn("fusionkit:", error);
        emit(this._errorListeners, error);
    }

    _failPending(error) {
        const pending = [...this._pending.values()];
        this._pending.clear();
        for (const call of pending) call.reject(error);
    }

    /** Sends a message with a fresh id; resolves with the reply (ok, created, manifest),
     *  rejects with a FusionError (error, or the connection dropped). */
    _call(message) {
        return new Promise((resolve, reject) => {
            if (!this._isOpen()) {
                reject(this._closedByPage ? new FusionError("CLIENT_CLOSED", "the bridge was closed") : notConnected());
                return;
            }
            const id = this._nextId++;
            this._pending.set(id, { resolve, reject });
            try {
                this._socket.send(JSON.stringify({ ...message, id }));
            } catch (error) {
                this._pending.delete(id);
                reject(new FusionError("CLIENT_NOT_CONNECTED", messageOf(error)));
            }
        });
    }

    // -- Messages --------------------------------------------------------------------

    _received(socket, data) {
        if (socket !== this._socket) return;
        if (typeof data !== "string") return; // the protocol speaks in text frames only
        let message;
        try {
            message = JSON.parse(data);
        } catch {
            this._emitError(new FusionError("CLIENT_MALFORMED_MESSAGE", "the server sent a frame that is not JSON"));
            return;
        }
        if (!isContainer(message)) return;
        switch (message.type) {
            case "welcome":
                this._welcome(message);
                break;
            case "state": {
                // A state may come before the `created` that names it: keep it in a record.
                let record = this._table.get(message.instance);
                if (!record) {
                    record = new Instance(this, message.instance, null);
                    this._table.set(message.instance, record);
                }
                record._receivedState(message);
                break;
            }
            case "patch":
                this._table.get(message.instance)?._receivedPatch(message);
                break;
            case "request": {
                let record = this._table.get(message.instance);
                if (!record) {
                    record = new Instance(this, message.instance, null);
                    this._table.set(message.instance, record);
                }
                record._receivedRequest(message);
                break;
            }
            case "cancel":
                this._table.get(message.instance)?._receivedCancel(message.id);
                break;
            case "destroyed": {
                const record = this._table.get(message.instance);
                if (record) {
                    this._table.delete(message.instance);
                    this._owned.delete(record);
                    record._receivedDestroyed();
                }
                break;
            }
            case "ok":
            case "created":
            case "manifest":
            case "error":
                this._reply(message);
                break;
            default:
                break; // a newer server's message: not ours to understand
        }
    }

    _reply(message) {
        let re = message.re ?? null;
        if (re === null && message.type === "error" && message.status !== "BRIDGE_SESSION_LIMIT" && this._pending.size > 0) {
            // Every message gets one reply, in the order sent; a refusal that could not
            // name its message (dropped unread: rate limit, size) answers the oldest
            // call still waiting.
            re = this._pending.keys().next().value;
        }
        const call = re === null ? undefined : this._pending.get(re);
        if (!call) {
            if (message.type === "error") {
                const error = new FusionError(message.status, message.message, message.re ?? null);
                if (message.re === null || message.re === undefined) this._lastRefusal = error;
                this._emitError(error);
            }
            return;
        }
        this._pending.delete(re);
        if (message.type === "error") call.reject(new FusionError(message.status, message.message, message.re ?? null));
        else call.resolve(message);
    }

    _welcome(message) {
        this.session = typeof message.session === "string" ? message.session : null;
        this.library = message.library ?? null;
        this.limits = message.limits ?? null;
        if (this.session) writeStorage(this._storage, this._storageKey, this.session);
        this._welcomed = true;
        this._delay = this._minDelay;
        this._lastRefusal = null;

        const resumed = message.resumed === true;
        const listed = new Map();
        if (resumed && Array.isArray(message.instances)) {
            for (const entry of message.instances) listed.set(entry.instance, entry.feature);
        }
        // The session's instances as the server has them; ours first.
        const old = this._table;
        this._table = new Map();
        const rejoined = [];
        const lost = [];
        for (const instance of this._owned) {
            if (listed.has(instance.id) && listed.get(instance.id) === instance.feature) {
                this._table.set(instance.id, instance);
                rejoined.push(instance);
            } else {
                lost.push(instance);
            }
        }
        for (const [id, feature] of listed) {
            if (this._table.has(id)) continue;
            const previous = old.get(id);
            const record = previous && !this._owned.has(previous) ? previous : new Instance(this, id, feature);
            record.feature = feature;
            this._table.set(id, record);
            rejoined.push(record);
        }
        // Requests that were open before: those the replay does not name again are gone.
        for (const record of rejoined) record._beginRejoin();

        this._setStatus("open");
        if (this._first) {
            const first = this._first;
            this._first = null;
            first.resolve(this);
        }
        for (const instance of lost) this._recreate(instance);

        // The replay (states, then open requests) comes before the reply to anything we
        // send now, so a reply marks its end.
        const withRequests = rejoined.filter((record) => record._requestInfo.size > 0);
        if (withRequests.length > 0) {
            const done = () => {
                for (const record of rejoined) record._endRejoin();
            };
            this._call({ type: "resync", instance: withRequests[0].id }).then(done, (error) => {
                if (error.status !== "CLIENT_DISCONNECTED" && error.status !== "CLIENT_CLOSED") done();
            });
        }
    }

    // -- Instances ---------------------------------------------------------------------

    async _create(feature, key, options, reuse) {
        if (typeof feature !== "string" || feature === "") throw new TypeError("a feature name is a non-empty string");
        const message = { type: "create", feature };
        if (key !== undefined && key !== null) message.key = key;
        if (reuse) message.reuse = true;
        if (options !== undefined) message.options = options;
        const reply = await this._call(message);
        const { instance, isNew } = this._adopt(reply, null);
        if (isNew) {
            instance._key = message.key ?? null;
            instance._reuse = reuse;
            instance._options = options;
        }
        return instance;
    }

    /** Makes the record a `created` names the page's instance (or `into`, re-created). */
    _adopt(reply, into) {
        const id = reply.instance;
        const record = this._table.get(id);
        let instance = into;
        let isNew = true;
        if (!instance) {
            if (record && this._owned.has(record)) {
                isNew = false;
                instance = record;
            } else {
                instance = record ?? new Instance(this, id, reply.feature);
            }
        } else if (record && record !== instance) {
            instance._absorb(record);
        }
        instance.id = id;
        if (typeof reply.feature === "string") instance.feature = reply.feature;
        instance.existing = reply.existing === true;
        this._table.set(id, instance);
        this._owned.add(instance);
        return { instance, isNew };
    }

    /** The server forgot an instance of ours (its session expired, or it restarted):
     *  make it again with the same feature, key and options, and carry on. */
    _recreate(instance) {
        instance._forget();
        const message = { type: "create", feature: instance.feature };
        if (instance._key !== null) {
            message.key = instance._key;
            message.reuse = true;
        }
        if (instance._options !== undefined) message.options = instance._options;
        const done = this._call(message).then(
            (reply) => {
                this._adopt(reply, instance);
                instance._ready = null;
                instance._notifyState();
                instance._notifyRequests();
                for (const id of [...instance._requestInfo.keys()]) instance._runHandler(id);
            },
            (error) => {
                instance._ready = null;
                // Dropped again: the next welcome tries again.
                if (error.status === "CLIENT_DISCONNECTED" || error.status === "CLIENT_CLOSED") return;
                // Refused: the instance is gone for good. Its id may now name another
                // instance of the session, so nothing may be sent under it any more.
                if (this._table.get(instance.id) === instance) this._table.delete(instance.id);
                this._owned.delete(instance);
                instance._receivedDestroyed();
                this._emitError(error);
            },
        );
        instance._ready = done;
    }
}

// ---------------------------------------------------------------------------------
// Instances

export class Instance {
    constructor(bridge, id, feature) {
        this._bridge = bridge;
        /** The instance's id in the session ("#1", or the key it was created with). */
        this.id = id;
        /** The feature's name. */
        this.feature = feature;
        /** The state at `version`; undefined until the first `state`. Never changed in
         *  place: each change makes a new object (unchanged parts are shared). */
        this.state = undefined;
        /** The version of `state`; null until the first `state`. */
        this.version = null;
        /** Whether create found the instance already there (a reload, with instance()). */
        this.existing = false;
        /** True once the instance is destroyed. */
        this.destroyed = false;
        /** The host requests open now: id → {kind, payload}. A new Map on every change. */
        this.requests = new Map();

        this._requestInfo = new Map(); // id → {entry, run, seen, abort}
        this._stateListeners = new Set();
        this._requestsListeners = new Set();
        this._destroyedListeners = new Set();
        this._handler = null;
        this._handlerToken = 0;
        this._resyncing = false;
        this._waiters = []; // {version, resolve}
        this._ready = null; // while being re-created
        this._key = null;
        this._reuse = false;
        this._options = undefined;
    }

    // -- Public API --------------------------------------------------------------

    /** Applies an input: send("increase"), send({answerChanged: {text: "hi"}}) or
     *  send("answerChanged", {text: "hi"}). Resolves with {version} once the server has
     *  applied it (and the state it produced is here); rejects with a FusionError. */
    async send(input, fields) {
        const message = normalizeInput(input, fields);
        await this._whenReady();
        const reply = await this._bridge._call({ type: "send", instance: this.id, input: message });
        return this._acknowledged(reply);
    }

    /** Calls fn(state, version) now if a state is known and after every change; returns
     *  a function that stops it. */
    onState(fn) {
        this._stateListeners.add(fn);
        if (this.state !== undefined) {
            try {
                fn(this.state, this.version);
            } catch (error) {
                report(error);
            }
        }
        return () => this._stateListeners.delete(fn);
    }

    /** Answers host requests: handler(kind, payload, id, signal) returns the result (or
     *  a Promise of it), sent as `respond`; a throw or rejection is sent as `fail` with
     *  its message. Runs for the requests open now and every later one. `signal` aborts
     *  when the request is cancelled. One handler at a time; returns a function that
     *  removes it (answers still being worked out are then dropped, their requests left open). */
    onRequest(handler) {
        this._handler = handler;
        const token = ++this._handlerToken;
        for (const id of [...this._requestInfo.keys()]) this._runHandler(id);
        return () => {
            if (this._handlerToken !== token) return;
            this._handler = null;
            this._handlerToken++;
            for (const info of this._requestInfo.values()) info.run = 0;
        };
    }

    /** Calls fn(requests) now and whenever the open host requests change. */
    onRequests(fn) {
        this._requestsListeners.add(fn);
        try {
            fn(this.requests);
        } catch (error) {
            report(error);
        }
        return () => this._requestsListeners.delete(fn);
    }

    /** Calls fn() when the instance is destroyed (by this page or another of the session). */
    onDestroyed(fn) {
        this._destroyedListeners.add(fn);
        return () => this._destroyedListeners.delete(fn);
    }

    /** Answers host request `id` with `result` (any JSON value). */
    respond(id, result) {
        return this._answer(id, { type: "respond", result: result === undefined ? null : result });
    }

    /** Answers host request `id` with an error. */
    fail(id, message) {
        return this._answer(id, { type: "fail", message: typeof message === "string" ? message : messageOf(message) });
    }

    /** Moves a manual clock (option clock: "manual") by `seconds`; resolves once the
     *  effects it woke have settled. */
    async advanceClock(seconds) {
        await this._whenReady();
        const reply = await this._bridge._call({ type: "advanceClock", instance: this.id, seconds });
        return this._acknowledged(reply);
    }

    /** Asks for the whole state again. */
    async resync() {
        await this._whenReady();
        const reply = await this._bridge._call({ type: "resync", instance: this.id });
        return this._acknowledged(reply);
    }

    /** Destroys the instance. */
    async destroy() {
        if (this.destroyed) return;
        await this._whenReady();
        await this._bridge._call({ type: "destroy", instance: this.id });
        if (!this.destroyed) {
            this._bridge._table.delete(this.id);
            this._bridge._owned.delete(this);
            this._receivedDestroyed();
        }
    }

    // -- Internals -----------------------------------------------------------------

    async _whenReady() {
        if (this._ready) await this._ready;
        if (this.destroyed) throw new FusionError("CLIENT_DESTROYED", `the instance ${this.id} is destroyed`);
    }

    /** An `ok`: waits, if a resync is under way, until the state has caught up with it. */
    async _acknowledged(reply) {
        const version = typeof reply.version === "number" ? reply.version : this.version;
        if (this._resyncing && typeof version === "number" && !(this.version !== null && this.version >= version)) {
            await new Promise((resolve) => this._waiters.push({ version, resolve }));
        }
        return { version };
    }

    _settleWaiters(all) {
        if (this._waiters.length === 0) return;
        const waiting = this._waiters;
        this._waiters = [];
        for (const waiter of waiting) {
            if (all || (this.version !== null && this.version >= waiter.version)) waiter.resolve();
            else this._waiters.push(waiter);
        }
    }

    _notifyState() {
        if (this.state !== undefined) emit(this._stateListeners, this.state, this.version);
    }

    _receivedState(message) {
        const same = this.state !== undefined && this.version === message.to;
        this._resyncing = false;
        if (!same) {
            this.state = message.state;
            this.version = message.to;
        }
        this._settleWaiters(true);
        if (!same) this._notifyState();
    }

    _receivedPatch(message) {
        if (this.state === undefined || message.from !== this.version) {
            this._lostTrack();
            return;
        }
        let next;
        try {
            next = applyPatch(this.state, message.patch);
        } catch (error) {
            this._lostTrack(error);
            return;
        }
        // A new top-level value for every change, even an empty patch.
        this.state = next === this.state && isContainer(next) ? shallowCopy(next) : next;
        this.version = message.to;
        this._settleWaiters(false);
        this._notifyState();
    }

    /** The state held no longer follows: ask for the whole state (once). */
    _lostTrack() {
        if (this._resyncing) return;
        if (!this._bridge._owned.has(this)) {
            // A record nobody shows: forget its state; a create sends it again.
            this.state = undefined;
            this.version = null;
            return;
        }
        this._resyncing = true;
        this._bridge._call({ type: "resync", instance: this.id }).then(
            () => {
                this._resyncing = false;
                this._settleWaiters(true);
            },
            (error) => {
                this._resyncing = false;
                this._settleWaiters(true);
                if (error.status !== "CLIENT_DISCONNECTED" && error.status !== "CLIENT_CLOSED") this._bridge._emitError(error);
            },
        );
    }

    _disconnected() {
        this._resyncing = false;
        this._settleWaiters(true);
    }

    _receivedDestroyed() {
        this.destroyed = true;
        this._clearRequests();
        this._settleWaiters(true);
        emit(this._destroyedListeners);
    }

    /** Before a re-create: the server's requests and resync are gone with the old instance. */
    _forget() {
        this._resyncing = false;
        this._clearRequests();
    }

    /** A re-created instance takes the fresh record's state and requests. */
    _absorb(record) {
        if (record.state !== undefined) {
            this.state = record.state;
            this.version = record.version;
        }
        for (const [id, info] of record._requestInfo) this._requestInfo.set(id, info);
        this._rebuildRequests();
    }

    // -- Host requests ---------------------------------------------------------------

    _rebuildRequests() {
        const requests = new Map();
        for (const [id, info] of this._requestInfo) requests.set(id, info.entry);
        this.requests = requests;
    }

    _notifyRequests() {
        emit(this._requestsListeners, this.requests);
    }

    _requestsChanged() {
        this._rebuildRequests();
        this._notifyRequests();
    }

    _clearRequests() {
        if (this._requestInfo.size === 0) return;
        for (const info of this._requestInfo.values()) info.abort?.abort();
        this._requestInfo.clear();
        this._requestsChanged();
    }

    _receivedRequest(message) {
        const id = message.id;
        const existing = this._requestInfo.get(id);
        if (existing) {
            // Named again by a rejoin's replay: still open.
            existing.seen = true;
            existing.entry = { kind: message.kind, payload: message.payload };
            this._requestsChanged();
            this._runHandler(id);
            return;
        }
        const info = {
            entry: { kind: message.kind, payload: message.payload },
            run: 0,
            seen: true,
            abort: typeof AbortController === "function" ? new AbortController() : null,
        };
        this._requestInfo.set(id, info);
        this._requestsChanged();
        this._runHandler(id);
    }

    _receivedCancel(id) {
        const info = this._requestInfo.get(id);
        if (!info) return;
        this._requestInfo.delete(id);
        info.cancelled = true;
        info.abort?.abort();
        this._requestsChanged();
    }

    _beginRejoin() {
        for (const info of this._requestInfo.values()) info.seen = false;
    }

    _endRejoin() {
        let changed = false;
        for (const [id, info] of [...this._requestInfo]) {
            if (info.seen) continue;
            this._requestInfo.delete(id);
            info.abort?.abort();
            changed = true;
        }
        if (changed) this._requestsChanged();
    }

    /** A request id as the server gave it, from a number or its text (a data attribute). */
    _requestKey(id) {
        if (this._requestInfo.has(id)) return id;
        for (const key of this._requestInfo.keys()) if (String(key) === String(id)) return key;
        // Request ids are whole numbers on the wire.
        return typeof id === "string" && /^[0-9]+$/.test(id) ? Number(id) : id;
    }

    _runHandler(id) {
        const handler = this._handler;
        const info = this._requestInfo.get(id);
        if (!handler || !info || !this._bridge._owned.has(this)) return;
        const token = this._handlerToken;
        if (info.run === token) return; // already being answered
        info.run = token;
        const { kind, payload } = info.entry;
        const current = () => info.run === token && this._requestInfo.get(id) === info && !this.destroyed;
        Promise.resolve()
            .then(() => handler(kind, payload, id, info.abort?.signal))
            .then(
                (result) => ({ how: "respond", value: result }),
                (error) => ({ how: "fail", value: messageOf(error) }),
            )
            .then(({ how, value }) => {
                if (!current()) return;
                if (!this._bridge._isOpen() || this._ready) {
                    info.run = 0; // answered again when the replay names it
                    return;
                }
                const answer = how === "respond" ? this.respond(id, value) : this.fail(id, value);
                answer.catch((error) => {
                    if (error.status === "CLIENT_DISCONNECTED" || error.status === "CLIENT_NOT_CONNECTED") {
                        if (this._requestInfo.get(id) === info) info.run = 0;
                        return;
                    }
                    // Cancelled while the answer was on its way: nobody waits for it.
                    if (error.status === "FK_ERR_UNKNOWN_REQUEST" && info.cancelled) return;
                    this._bridge._emitError(error);
                });
            });
    }

    async _answer(id, message) {
        await this._whenReady();
        const key = this._requestKey(id);
        try {
            const reply = await this._bridge._call({ ...message, instance: this.id, request: key });
            this._dropRequest(key);
            return this._acknowledged(reply);
        } catch (error) {
            if (error.status === "FK_ERR_UNKNOWN_REQUEST") this._dropRequest(key);
            throw error;
        }
    }

    _dropRequest(id) {
        const info = this._requestInfo.get(id);
        if (!info) return;
        this._requestInfo.delete(id);
        this._requestsChanged();
    }
}
