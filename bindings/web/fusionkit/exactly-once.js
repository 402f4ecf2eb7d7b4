// Inputs exactly once across a dropped connection (docs/web-protocol.md, "Exactly
// once"): message ids unique in the session, and the inputs a connection dropped before
// their replies, asked about after the rejoin and sent again only if not applied.
import { FusionError } from "./errors.js";

/** Eight random hex digits: this page's part of its message ids. */
export function randomToken() {
    const bytes = new Uint8Array(4);
    if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
    else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
    return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Rejects every input still waiting to be settled (the page closed the bridge, or the
 *  answer cannot come). */
export function failUnsure(bridge, error) {
    const unsure = [...bridge._unsure.values()];
    bridge._unsure.clear();
    for (const call of unsure) call.reject(error);
}

/** After a rejoin of the same session: asks which unanswered inputs were applied;
 *  those were, resolve; those the feature refused reject with its error; the others are sent again, with their own ids, so none is
 *  applied twice and none is lost. In a new session they were not (nor can be). */
export function settleUnsure(bridge, resumed) {
    if (bridge._unsure.size === 0) return;
    if (!resumed) {
        failUnsure(bridge, new FusionError("CLIENT_DISCONNECTED", "the connection closed before the reply, and the server no longer has the session"));
        return;
    }
    const ids = [...bridge._unsure.keys()];
    bridge._call({ type: "applied", ids }).then(
        (reply) => {
            const applied = new Set(Array.isArray(reply.ids) ? reply.ids : []);
            // A poison input: it killed the bridge that applied it, and was put away.
            const poisoned = new Set(Array.isArray(reply.poisoned) ? reply.poisoned : []);
            // Refused by the feature: done, with the error the lost reply carried.
            const refused = new Map((Array.isArray(reply.refused) ? reply.refused : []).map((entry) => [entry?.id, entry]));
            for (const id of ids) {
                const call = bridge._unsure.get(id);
                if (!call) continue;
                bridge._unsure.delete(id);
                if (applied.has(id)) {
                    call.resolve({ type: "ok" });
                    continue;
                }
                if (refused.has(id)) {
                    const refusal = refused.get(id);
                    call.reject(new FusionError(String(refusal.status), String(refusal.message), id));
                    continue;
                }
                if (poisoned.has(id)) {
                    call.reject(new FusionError("BRIDGE_POISON_INPUT", "the input killed the bridge that applied it (the feature trapped); it was not applied, and the session goes on from the state before it"));
                    continue;
                }
                bridge._pending.set(id, call);
                try {
                    bridge._socket.send(JSON.stringify(call.message));
                } catch {
                    // dropped again: _closed moves it back among the unsure
                }
            }
        },
        (error) => {
            // Dropped again: the next rejoin asks again. Otherwise they cannot be settled.
            if (error.status !== "CLIENT_DISCONNECTED") failUnsure(bridge, error);
        },
    );
}
