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
    ["Bridge", "FusionError", "Instance", "PatchError", "applyPatch", "connect", "jsonEqual", "normalizeInput", "parsePointer"]);
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
console.log("ok");
