// bridge.js: the connection to `fusion serve` (docs/web-protocol.md): the session kept
// and rejoined after a drop, replies matched to the calls that asked for them, and
// server messages routed to the instances they name.

import { absoluteURL, defaultURL, protocols } from "./address.js";
import { FusionError, badArgument, messageOf, notConnected } from "./errors.js";
import { failUnsure, randomToken, settleUnsure } from "./exactly-once.js";
import { Instance } from "./instance.js";
import { instanceKey } from "./instance-key.js";
import { connectLocal } from "./local.js";
import { emit, listen } from "./listeners.js";
import { isContainer } from "./patch.js";
import { STORAGE_KEY, defaultStorage, readStorage, writeStorage } from "./storage.js";

const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;
/** The server closes with this when it has too many sessions: try again later, not now. */
const CLOSE_TRY_AGAIN_LATER = 1013;
const CLOSE_NORMAL = 1000;
/** The session moved to another bridge (hand-over, or fencing): rejoin at once. */
const CLOSE_SESSION_MOVED = 4000;
/** The bridge refused the connection on principle: its Origin, a session in the URL, a
 *  limit of the user's (1008); or it does not know who is connecting (4001: no token, a
 *  bad one, or it expired). The same connection would be refused again: stop. */
const CLOSE_POLICY = 1008;
const CLOSE_UNAUTHENTICATED = 4001;

/**
 * Opens a bridge to `fusion serve`. `url` defaults to ws(s)://<this page's host>/ws.
 * Resolves once the server has welcomed the session; rejects if that first connection
 * fails. Later drops are handled by reconnecting with the same session.
 * `connect({wasm: "/FusionExamples.wasm"})` runs the library in the page instead
 * (local.js): the same API, no server.
 */
export async function connect(url, options = {}) {
    if (url !== null && typeof url === "object" && !(url instanceof URL) && "wasm" in url) return connectLocal(url);
    const bridge = new Bridge(absoluteURL(url ?? defaultURL()), options);
    await bridge._start();
    return bridge;
}

export class Bridge {
    constructor(url, options = {}) {
        /** Where the features run: here, on a bridge ("wasm" for connect({wasm})). */
        this.transport = "bridge";
        /** The WebSocket URL, without the session parameter. */
        this.url = url;
        /** The session id (32 hex digits), from the last welcome. */
        this.session = null;
        /** The library the server hosts: {name, version, abiVersion} (the first, when it serves several). */
        this.library = null;
        /** Every library the server hosts, in the order it was given them. */
        this.libraries = null;
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
        // The error that named no message on this socket before its welcome: why the
        // bridge is closing it (a join refused). Errors after the welcome never count, so a
        // later close says its own reason.
        this._lastRefusal = null;
        // Message ids are unique in the session across reconnects and reloads: a random
        // token of this page's, then a count. The server remembers the ids of applied
        // inputs, and a page that lost its connection before a reply asks by them.
        this._token = randomToken();
        this._nextId = 1;
        this._pending = new Map(); // call id → {resolve, reject, message?}
        /** Inputs sent before a connection dropped, with no reply: whether they were
         *  applied is asked on the rejoin; those that were not are sent again. */
        this._unsure = new Map(); // call id → {resolve, reject, message}
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

    /** The instance named `key`, made if the session has none: after a reload the page
     *  gets its instance back. `options` apply only when it is made. Without `key`, the
     *  key is instanceKey(feature, options): the feature's name, with the options when
     *  there are any, so that different options never share an instance (null: none,
     *  the server names it). */
    instance(feature, { key, options } = {}) {
        return this._create(feature, key === undefined ? instanceKey(feature, options) : key, options, true);
    }

    /** Calls fn(status) now and on every change; returns a function that stops it. */
    onStatus(fn) {
        return listen(this._statusListeners, fn, () => [this.status]);
    }

    /** Calls fn(error) for errors no pending call receives: refusals with no id, a
     *  session limit, failed automatic resyncs, answers to host requests that failed,
     *  an instance whose state could not be read after a change (`failed`). */
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
        this._lostConnection(new FusionError("CLIENT_CLOSED", "the bridge was closed"));
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
            socket = new this._WebSocket(this.url, protocols(session));
        } catch (error) {
            this._socket = null;
            this._closed(null, { code: 0, reason: messageOf(error) });
            return;
        }
        this._socket = socket;
        this._lastRefusal = null;
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
        this._lostConnection(new FusionError("CLIENT_DISCONNECTED", `the connection closed before the reply (code ${code})`));
        if (this._closedByPage) return;

        if (this._first) {
            const first = this._first;
            this._first = null;
            this._setStatus("closed");
            const reason = event?.reason ? `: ${event.reason}` : "";
            first.reject(this._lastRefusal ?? new FusionError("CLIENT_CONNECT_FAILED", `could not connect to ${this.url} (code ${code}${reason})`));
            return;
        }
        if (code === CLOSE_TRY_AGAIN_LATER || code === CLOSE_POLICY || code === CLOSE_UNAUTHENTICATED || !this._reconnect) {
            this._setStatus("closed");
            if (code === CLOSE_TRY_AGAIN_LATER && !this._lastRefusal) {
                this._emitError(new FusionError("BRIDGE_SESSION_LIMIT", event?.reason || "the server has too many sessions"));
            } else if (code === CLOSE_UNAUTHENTICATED) {
                // Also when the token expired while connected (no error message came then).
                this._emitError(this._lastRefusal ?? new FusionError("BRIDGE_UNAUTHENTICATED", event?.reason || "sign in again"));
            } else if (code === CLOSE_POLICY && !this._lastRefusal) {
                this._emitError(new FusionError("BRIDGE_REFUSED", event?.reason || "the bridge refused the connection"));
            }
            return;
        }
        this._setStatus("reconnecting");
        // A moved session is live elsewhere already: no reason to wait, nor to back off.
        const delay = code === CLOSE_SESSION_MOVED ? 0 : this._delay;
        if (code !== CLOSE_SESSION_MOVED) this._delay = Math.min(this._delay * 2, this._maxDelay);
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

    /** The socket is gone: pending calls reject with `error`, instances stop waiting. */
    _lostConnection(error) {
        this._failPending(error);
        for (const instance of this._table.values()) instance._disconnected();
        for (const instance of this._owned) instance._disconnected();
    }

    _failPending(error) {
        const pending = [...this._pending];
        this._pending.clear();
        for (const [id, call] of pending) {
            // An input may have been applied: asked about once a rejoin succeeds.
            if (call.message && error.status === "CLIENT_DISCONNECTED") this._unsure.set(id, call);
            else call.reject(error);
        }
        if (error.status !== "CLIENT_DISCONNECTED") failUnsure(this, error);
    }

    /** Sends a message with a fresh id; resolves with the reply (ok, created, manifest),
     *  rejects with a FusionError (error, or the connection dropped). With `once` (an
     *  input), a dropped connection does not reject it: it is settled after the rejoin. */
    _call(message, { once = false } = {}) {
        return new Promise((resolve, reject) => {
            if (!this._isOpen()) {
                reject(this._closedByPage ? new FusionError("CLIENT_CLOSED", "the bridge was closed") : notConnected());
                return;
            }
            const id = `${this._token}.${this._nextId++}`;
            const sent = { ...message, id };
            this._pending.set(id, once ? { resolve, reject, message: sent } : { resolve, reject });
            try {
                this._socket.send(JSON.stringify(sent));
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
            case "state":
                this._record(message.instance)._receivedState(message);
                break;
            case "patch":
                this._table.get(message.instance)?._receivedPatch(message);
                break;
            case "request":
                this._record(message.instance)._receivedRequest(message);
                break;
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
            case "failed":
                // The instance's state could not be read after a change: no call waits for this.
                this._emitError(new FusionError(String(message.status), `${message.instance}: ${message.message}`, null));
                break;
            case "ok":
            case "created":
            case "manifest":
            case "applied":
            case "error":
                this._reply(message);
                break;
            default:
                break; // a newer server's message: not ours to understand
        }
    }

    /** The record for an instance id: a state or request may come before the `created`
     *  that names it, so one is made and kept until then. */
    _record(id) {
        let record = this._table.get(id);
        if (!record) {
            record = new Instance(this, id, null);
            this._table.set(id, record);
        }
        return record;
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
                if ((message.re === null || message.re === undefined) && !this._welcomed) this._lastRefusal = error;
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
        this.libraries = message.libraries ?? (message.library ? [message.library] : null);
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
        settleUnsure(this, resumed);

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
        if (typeof feature !== "string" || feature === "") throw badArgument("a feature name is a non-empty string");
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

