// errors.js: the one error type of the client, and how a thrown value reads as text.

/** A refusal: from the server (`status` as in the protocol, `re` the refused message's
 *  id) or from this client (`CLIENT_…` statuses, `re` null). Every error the client
 *  raises is a FusionError: a wrong argument is `CLIENT_BAD_ARGUMENT`, a patch that
 *  cannot be applied a PatchError (`CLIENT_BAD_PATCH`). */
export class FusionError extends Error {
    constructor(status, message, re = null) {
        super(message);
        this.name = "FusionError";
        this.status = status;
        this.re = re;
    }
}

/** A JSON Patch that cannot be applied to the document it was given. */
export class PatchError extends FusionError {
    constructor(message) {
        super("CLIENT_BAD_PATCH", message);
        this.name = "PatchError";
    }
}

/** A wrong argument to one of the client's functions. */
export const badArgument = (message) => new FusionError("CLIENT_BAD_ARGUMENT", message);

export const notConnected = () => new FusionError("CLIENT_NOT_CONNECTED", "not connected to the server (reconnecting)");

/** A thrown value (an Error, a string, anything) as a message. */
export function messageOf(error) {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === "string") return error;
    try {
        return JSON.stringify(error) ?? String(error);
    } catch {
        return String(error);
    }
}
