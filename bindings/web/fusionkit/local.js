// local.js: the local transport. connect({wasm: url}) loads a library's WebAssembly
// module (scripts/build-wasm) and runs its features in the page: no server, no round
// trip, and the same Bridge and Instance API as `fusion serve` gives (docs/wasm.md).
//
// It answers the same messages the bridge's protocol has (create, send, advanceClock,
// resync, destroy, manifest) by calling the module, and hands the Instance the state the
// module holds after each call, before the call's promise settles, as the bridge's `ok`
// comes after its `state`. The module's clock moves only when told: an instance on the
// system clock is told by a timer set for its next timed effect (fk_next_wake), and told
// how much time passed before each call, so an effect that was due has fired first.
// A reload keeps the page's instances: their states are saved in sessionStorage when the
// page is hidden and given back as the `state` option when `instance()` asks again (timed
// effects and host requests under way are not saved; the page starts them again as it
// does on first load). Host requests (option requests: "host") reach the Instance as the
// bridge's `request` and `cancel` do, and its answers go to the module.

import { FusionError, badArgument } from "./errors.js";
import { Instance } from "./instance.js";
import { instanceKey } from "./instance-key.js";
import { emit, listen } from "./listeners.js";
import { defaultStorage } from "./storage.js";
import { loadLibrary } from "./wasm.js";

/** Where the saved instances of a module go in sessionStorage (with the module's URL). */
const SAVED_PREFIX = "fusionkit.local:";

/**
 * Loads the module at `wasm` (a URL, or the module's bytes) and resolves with a
 * LocalBridge. Rejects with CLIENT_WASM_UNAVAILABLE when it cannot be fetched or compiled.
 * @param {{wasm: string | URL | ArrayBuffer | Uint8Array, storage?: Storage | null}} options
 */
export async function connectLocal(options) {
    const source = options.wasm;
    let library;
    let url = null;
    try {
        if (typeof source === "string" || source instanceof URL) {
            url = new URL(String(source), globalThis.location?.href).href;
            const response = await fetch(url);
            if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
            library = await loadLibrary(response.headers.get("content-type")?.startsWith("application/wasm") ? response : await response.arrayBuffer());
        } else {
            library = await loadLibrary(source);
        }
    } catch (error) {
        throw new FusionError("CLIENT_WASM_UNAVAILABLE", `the WebAssembly module could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    return new LocalBridge(library, url, options);
}

export class LocalBridge {
    constructor(library, url, options = {}) {
        /** How this page runs its features: "wasm" (here), where a Bridge says "bridge". */
        this.transport = "wasm";
        /** The module's URL (null when given as bytes). */
        this.url = url;
        /** No session: the instances live in this page. */
        this.session = null;
        const manifest = library.manifest;
        /** The library the module holds: {name, version, abiVersion}. */
        this.library = { ...manifest.library, abiVersion: manifest.abiVersion };
        this.libraries = [this.library];
        /** No server, so no server's limits. */
        this.limits = null;
        /** "open" until close(), then "closed". */
        this.status = "open";

        this._module = library;
        this._manifest = manifest;
        this._storage = options.storage === undefined ? defaultStorage() : options.storage;
        this._savedKey = `${SAVED_PREFIX}${url ?? manifest.library.name}`;
        this._saved = this._readSaved();
        this._nextId = 1;
        /** Instance id → Instance, as the Bridge keeps them. */
        this._table = new Map();
        this._owned = new Set();
        /** Instance id → {module, key, feature, options, base, onSystemClock, told, timer}. */
        this._running = new Map();
        this._statusListeners = new Set();
        this._errorListeners = new Set();
        /** Set once the module trapped: it is not called again. */
        this._broken = false;
        this._save = () => this._writeSaved();
        globalThis.addEventListener?.("pagehide", this._save);
    }

    // -- The Bridge's public API ------------------------------------------------------

    /** The library's manifest, from the module (fk_manifest). */
    async manifest() {
        return structuredClone(this._manifest);
    }

    /** A new instance of `feature` (always new; with `key` it is named by it). */
    create(feature, { key, options } = {}) {
        return this._call({ type: "create", feature, key, options }).then((reply) => reply.instance);
    }

    /** The instance named `key` (default: instanceKey(feature, options)), made if this page
     *  has none: after a reload the page gets its instance back, from the saved state. */
    instance(feature, { key, options } = {}) {
        const name = key === undefined ? instanceKey(feature, options) : key;
        return this._call({ type: "create", feature, key: name, options, reuse: true }).then((reply) => reply.instance);
    }

    /** Calls fn(status) now and on every change; returns a function that stops it. */
    onStatus(fn) {
        return listen(this._statusListeners, fn, () => [this.status]);
    }

    /** Calls fn(error) for errors no call receives (an effect's timer that failed). */
    onError(fn) {
        this._errorListeners.add(fn);
        return () => this._errorListeners.delete(fn);
    }

    /** A trap (a Swift precondition, memory out of bounds): the module's memory can no
     *  longer be trusted, so the page stops using it, as a bridge stops a poisoned
     *  instance; the error says so. Nothing more is asked of the module. */
    _trapped(error) {
        this._broken = true;
        this.close();
        return new FusionError("CLIENT_WASM_TRAPPED", `the WebAssembly module stopped: ${error instanceof Error ? error.message : String(error)}`);
    }

    /** Destroys every instance and stops their timers; calls after it reject. */
    close() {
        if (this.status === "closed") return;
        this._writeSaved();
        if (this._broken) {
            for (const running of this._running.values()) if (running.timer !== null) clearTimeout(running.timer);
            this._running.clear();
        }
        for (const id of [...this._running.keys()]) this._stop(id);
        this.status = "closed";
        globalThis.removeEventListener?.("pagehide", this._save);
        emit(this._statusListeners, this.status);
    }

    // -- What Instance calls ------------------------------------------------------------

    /** Answers one of the protocol's messages, as the bridge would. */
    _call(message) {
        return new Promise((resolve) => {
            if (this.status === "closed") throw new FusionError("CLIENT_CLOSED", "the bridge was closed");
            try {
                resolve(this._answer(message));
            } catch (error) {
                throw error instanceof FusionError ? error : this._trapped(error);
            }
        });
    }

    _emitError(error) {
        emit(this._errorListeners, error);
    }

    /** Open until close(): there is no connection to lose. */
    _isOpen() {
        return this.status === "open";
    }

    _answer(message) {
        switch (message.type) {
            case "manifest":
                return { type: "manifest", manifest: structuredClone(this._manifest) };
            case "create":
                return this._create(message);
            case "send": {
                const running = this._find(message.instance);
                this._catchUp(running);
                running.module.send(JSON.stringify(message.input));
                return this._settled(message.instance, running);
            }
            case "advanceClock": {
                const running = this._find(message.instance);
                const seconds = message.seconds;
                if (typeof seconds !== "number" || !(seconds >= 0 && seconds <= 1e9)) {
                    throw new FusionError("BRIDGE_MALFORMED_MESSAGE", `"seconds" of an "advanceClock" message is from 0 to 1e9; got ${seconds}`);
                }
                running.module.advanceClock(BigInt(Math.round(seconds * 1e9)));
                return this._settled(message.instance, running);
            }
            case "respond":
            case "fail": {
                const running = this._find(message.instance);
                const request = message.request;
                if (typeof request !== "number" || !Number.isInteger(request) || request < 0) {
                    throw new FusionError("BRIDGE_MALFORMED_MESSAGE", `"request" of a "${message.type}" message is a request's id; got ${JSON.stringify(request)}`);
                }
                this._catchUp(running);
                if (message.type === "respond") running.module.respond(request, JSON.stringify(message.result ?? null));
                else running.module.failRequest(request, String(message.message));
                return this._settled(message.instance, running);
            }
            case "resync": {
                const running = this._find(message.instance);
                this._publish(message.instance, running, true);
                return { type: "ok", version: this._version(running) };
            }
            case "destroy":
                this._find(message.instance);
                this._stop(message.instance);
                this._forget(message.instance);
                return { type: "ok" };
            default:
                throw new FusionError("BRIDGE_MALFORMED_MESSAGE", `unknown message type "${message.type}"`);
        }
    }

    _create({ feature, key, options, reuse }) {
        if (typeof feature !== "string" || feature === "") throw badArgument("a feature name is a non-empty string");
        const named = key !== undefined && key !== null;
        if (named && this._running.has(key)) {
            const running = this._running.get(key);
            // The bridge's refusals, word for word (BridgeSession.reusable).
            if (!reuse) throw new FusionError("BRIDGE_KEY_TAKEN", `this session already has an instance "${key}"; send "reuse": true to use it`);
            if (running.feature !== feature) {
                throw new FusionError("BRIDGE_KEY_TAKEN", `this session's instance "${key}" is a "${running.feature}", not a "${feature}"`);
            }
            const instance = this._table.get(key);
            instance.existing = true;
            return { type: "created", instance };
        }
        // A reload: the saved state of the instance with this key comes back in its place.
        const saved = named && reuse ? this._saved[key] : undefined;
        let restoring = saved !== undefined && saved.feature === feature;
        let module;
        try {
            module = this._module.create(feature, restoring ? { ...(options ?? {}), state: saved.state } : options ?? null);
        } catch (error) {
            // A saved state the module no longer reads (a newer library since the reload):
            // forgotten, and the instance made as if for the first time.
            if (!restoring || !(error instanceof FusionError) || error.status !== "FK_ERR_INVALID_STATE") throw error;
            delete this._saved[key];
            restoring = false;
            module = this._module.create(feature, options ?? null);
        }
        const id = named ? key : `#${this._nextId++}`;
        const running = {
            module, feature, key: named ? key : null, options,
            base: restoring ? saved.version : 0,
            onSystemClock: (options?.clock ?? "system") !== "manual",
            told: performance.now(), timer: null,
        };
        this._running.set(id, running);
        const instance = new Instance(this, id, feature);
        instance.existing = restoring;
        instance._key = running.key;
        instance._options = options;
        this._table.set(id, instance);
        this._owned.add(instance);
        this._publish(id, running, true);
        this._deliverRequests(id, running);
        this._schedule(id, running);
        return { type: "created", instance };
    }

    _find(id) {
        const running = this._running.get(id);
        if (!running) throw new FusionError("BRIDGE_UNKNOWN_INSTANCE", `no instance "${id}" in this session`);
        return running;
    }

    _version(running) {
        return running.base + running.module.version;
    }

    /** After a call that may have changed the state: publish it and the host requests it
     *  opened or cancelled, set the timer, reply. */
    _settled(id, running) {
        this._publish(id, running, false);
        this._deliverRequests(id, running);
        this._schedule(id, running);
        return { type: "ok", version: this._version(running) };
    }

    /** Hands the Instance the module's host requests and cancellations, in order, as the
     *  bridge's `request` and `cancel` messages (option requests: "host"). */
    _deliverRequests(id, running) {
        const instance = this._table.get(id);
        let event;
        while ((event = running.module.pollRequest()) !== null) {
            if (!instance) continue;
            if (event.event === "request") {
                instance._receivedRequest({ type: "request", instance: id, id: event.id, kind: event.kind, payload: event.payload });
            } else if (event.event === "cancel") {
                instance._receivedCancel(event.id);
            }
        }
    }

    /** Hands the Instance the module's state when its version moved (or `always`). */
    _publish(id, running, always) {
        const instance = this._table.get(id);
        const version = this._version(running);
        if (!instance || (!always && instance.version === version)) return;
        instance._receivedState({ type: "state", instance: id, to: version, state: JSON.parse(running.module.state()) });
    }

    /** Tells a system clock the time that passed since it was last told. */
    _catchUp(running) {
        if (!running.onSystemClock) return;
        const now = performance.now();
        const nanoseconds = Math.max(0, Math.round((now - running.told) * 1e6));
        running.told = now;
        if (nanoseconds > 0) running.module.elapse(BigInt(nanoseconds));
    }

    /** Sets the timer of an instance on the system clock for its next timed effect. */
    _schedule(id, running) {
        if (!running.onSystemClock) return;
        if (running.timer !== null) clearTimeout(running.timer);
        running.timer = null;
        const wake = running.module.nextWake;
        if (wake === null) return;
        running.timer = setTimeout(() => {
            running.timer = null;
            if (this._running.get(id) !== running) return;
            try {
                this._catchUp(running);
                this._settled(id, running);
            } catch (error) {
                this._emitError(error instanceof FusionError ? error : this._trapped(error));
            }
        }, Number(wake) / 1e6);
    }

    _stop(id) {
        const running = this._running.get(id);
        if (!running) return;
        if (running.timer !== null) clearTimeout(running.timer);
        running.module.destroy();
        this._running.delete(id);
        if (running.key !== null) delete this._saved[running.key];
    }

    _forget(id) {
        const instance = this._table.get(id);
        this._table.delete(id);
        if (!instance) return;
        this._owned.delete(instance);
        instance._receivedDestroyed();
    }

    // -- Kept across a reload -------------------------------------------------------------

    _readSaved() {
        try {
            const text = this._storage?.getItem(this._savedKey);
            const saved = text ? JSON.parse(text) : {};
            return saved !== null && typeof saved === "object" && !Array.isArray(saved) ? saved : {};
        } catch {
            return {}; // storage refused, or not ours: start afresh
        }
    }

    /** Saves the state of every named instance (the pagehide before a reload). */
    _writeSaved() {
        if (!this._storage) return;
        const saved = { ...this._saved };
        for (const [id, running] of this._running) {
            if (running.key === null) continue;
            const instance = this._table.get(id);
            if (instance?.state === undefined) continue;
            saved[running.key] = { feature: running.feature, state: instance.state, version: instance.version };
        }
        try {
            this._storage.setItem(this._savedKey, JSON.stringify(saved));
        } catch {
            // Full or refused: the next load starts afresh.
        }
    }
}
