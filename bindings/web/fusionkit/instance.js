// instance.js: one instance of a feature as a page holds it: its state kept current
// from `state` and `patch` messages, inputs sent, host requests answered.

import { FusionError, messageOf } from "./errors.js";
import { HostRequests } from "./host-requests.js";
import { normalizeInput } from "./input.js";
import { emit, listen } from "./listeners.js";
import { applyPatch, isContainer, shallowCopy } from "./patch.js";

export class Instance extends HostRequests {
    constructor(bridge, id, feature) {
        super();
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
        // Exactly once across a dropped connection: asked about, or sent again, on the rejoin.
        const reply = await this._bridge._call({ type: "send", instance: this.id, input: message }, { once: true });
        return this._acknowledged(reply);
    }

    /** Calls fn(state, version) now if a state is known and after every change; returns
     *  a function that stops it. */
    onState(fn) {
        return listen(this._stateListeners, fn, () => (this.state === undefined ? null : [this.state, this.version]));
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
        return listen(this._requestsListeners, fn, () => [this.requests]);
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
}
