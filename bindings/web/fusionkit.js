// fusionkit.js: the browser client of `fusion serve`.
//
// ES modules, no dependencies, no build step. It speaks the WebSocket protocol of
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
//
// This file is the public face; the parts are modules of one concept each in
// fusionkit/ (docs/layout.md): errors, patch (JSON Pointer/Patch), listeners, storage,
// input (the input shorthand), bridge (the connection), instance, instance-key (the key
// bridge.instance() asks for), host-requests, wasm (a library's WebAssembly module) and
// local (connect({wasm}): the same API with the features running in the page).

export { FusionError, PatchError } from "./fusionkit/errors.js";
export { applyPatch, jsonEqual, parsePointer } from "./fusionkit/patch.js";
export { normalizeInput } from "./fusionkit/input.js";
export { Bridge, connect } from "./fusionkit/bridge.js";
export { Instance } from "./fusionkit/instance.js";
export { instanceKey } from "./fusionkit/instance-key.js";
