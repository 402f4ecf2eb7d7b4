// host-requests.js: the host requests open on an instance (`request` / `cancel`
// messages), the page's handler run once for each, and its answer sent back. The
// Instance extends this class; its public face (onRequest, onRequests, respond, fail)
// is in instance.js.

import { messageOf } from "./errors.js";
import { emit } from "./listeners.js";

export class HostRequests {
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
