// Every error the web client raises is a FusionError (bindings/web/fusionkit/errors.js),
// run by test_client.py with node. Exits non-zero, naming the case, on a mismatch.
import assert from "node:assert/strict";

import * as fusionkit from "../../bindings/web/fusionkit.js";

const { FusionError, PatchError, applyPatch, parsePointer, normalizeInput, connect } = fusionkit;

function refuses(what, status, run) {
    try {
        run();
    } catch (error) {
        assert.ok(error instanceof FusionError, `${what}: ${error} is not a FusionError`);
        assert.equal(error.status, status, what);
        return error;
    }
    assert.fail(`${what}: nothing was thrown`);
}

assert.deepEqual(Object.keys(fusionkit).sort(),
    ["Bridge", "FusionError", "Instance", "PatchError", "applyPatch", "connect", "instanceKey", "jsonEqual", "normalizeInput", "parsePointer"]);
const patchError = refuses("a test operation that fails", "CLIENT_BAD_PATCH",
    () => applyPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]));
assert.ok(patchError instanceof PatchError);
assert.equal(patchError.message, 'test failed at "/a"');
refuses("a pointer without a slash", "CLIENT_BAD_PATCH", () => parsePointer("a"));
refuses("a number as an input", "CLIENT_BAD_ARGUMENT", () => normalizeInput(3));
refuses("an array as an input", "CLIENT_BAD_ARGUMENT", () => normalizeInput(["increase"]));
await assert.rejects(connect(), (error) => error instanceof FusionError && error.status === "CLIENT_NO_URL");
await assert.rejects(connect("ws://127.0.0.1:1/ws", { WebSocket: null }),
    (error) => error instanceof FusionError && error.status === "CLIENT_NO_WEBSOCKET");

// The session travels in the subprotocols, never the URL; a close with 4001 (the bridge's
// --auth refused the token, or it expired) stops the reconnecting and says so.
const sockets = [];
class FakeSocket {
    constructor(url, protocols) {
        this.url = url;
        this.protocols = protocols;
        this.readyState = 0;
        sockets.push(this);
        setTimeout(() => {
            this.readyState = 1;
            this.onmessage?.({ data: JSON.stringify({ type: "welcome", session: "0123456789abcdef0123456789abcdef", resumed: sockets.length > 1,
                instances: [], library: { name: "L", version: "1", abiVersion: 1 }, libraries: [], limits: {} }) });
        }, 0);
    }
    send() {}
    close() {}
    drop(code, reason) {
        this.readyState = 3;
        this.onclose?.({ code, reason });
    }
}
const bridge = await connect("ws://127.0.0.1:9/ws", { WebSocket: FakeSocket, storage: null, minDelay: 1 });
assert.equal(sockets[0].url, "ws://127.0.0.1:9/ws");
assert.deepEqual(sockets[0].protocols, ["fusion"]);
sockets[0].drop(1006, "");
await new Promise((resolve) => setTimeout(resolve, 20));
assert.equal(sockets.length, 2, "a dropped connection is rejoined");
assert.equal(sockets[1].url, "ws://127.0.0.1:9/ws", "the session is not in the URL");
assert.deepEqual(sockets[1].protocols, ["fusion", "fusion.session.0123456789abcdef0123456789abcdef"]);
const errors = [];
bridge.onError((error) => errors.push(error));
sockets[1].drop(4001, "the token expired: sign in again");
await new Promise((resolve) => setTimeout(resolve, 20));
assert.equal(sockets.length, 2, "no reconnect after 4001");
assert.equal(bridge.status, "closed");
assert.equal(errors.length, 1);
assert.ok(errors[0] instanceof FusionError && errors[0].status === "BRIDGE_UNAUTHENTICATED", String(errors[0]));
assert.match(errors[0].message, /sign in again/);

// An error that named no message while connected (a rate limit, with no call waiting) is
// not why a later close happens: a 1008 after it is still reported as a refusal.
sockets.length = 0;
const second = await connect("ws://127.0.0.1:9/ws", { WebSocket: FakeSocket, storage: null, minDelay: 1 });
const reported = [];
second.onError((error) => reported.push(error.status));
sockets[0].onmessage({ data: JSON.stringify({ type: "error", re: null, status: "BRIDGE_RATE_LIMITED", message: "slow down" }) });
sockets[0].drop(1008, "too many instances of yours");
await new Promise((resolve) => setTimeout(resolve, 20));
assert.deepEqual(reported, ["BRIDGE_RATE_LIMITED", "BRIDGE_REFUSED"]);
assert.equal(second.status, "closed");
// An instance whose state could not be read after a change (`failed`) is reported to
// onError, naming the instance, and answers no waiting call.
sockets.length = 0;
const third = await connect("ws://127.0.0.1:9/ws", { WebSocket: FakeSocket, storage: null, minDelay: 1 });
const failures = [];
third.onError((error) => failures.push(error));
sockets[0].onmessage({ data: JSON.stringify({ type: "failed", instance: "#1", status: "FK_ERR_PLUGIN_TRAPPED", message: "the plugin trapped" }) });
assert.equal(failures.length, 1);
assert.ok(failures[0] instanceof FusionError && failures[0].status === "FK_ERR_PLUGIN_TRAPPED", String(failures[0]));
assert.equal(failures[0].message, "#1: the plugin trapped");
third.close();
console.log("ok");
