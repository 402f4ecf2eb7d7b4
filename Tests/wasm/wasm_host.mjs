// Serves a FusionKit WebAssembly module over stdin/stdout for Python's tests: one JSON
// request per line, one JSON answer per line (Tests/wasm/wasm_library.py speaks it).
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { loadLibrary, FusionWasmError } from "../../bindings/web/fusionkit/wasm.js";

const library = await loadLibrary(readFileSync(process.argv[2]));
const instances = new Map();
const reply = (answer) => process.stdout.write(JSON.stringify(answer) + "\n");

for await (const line of createInterface({ input: process.stdin })) {
    const request = JSON.parse(line);
    try {
        const instance = instances.get(request.handle);
        switch (request.op) {
        case "features": reply({ features: library.featureNames }); break;
        case "manifest": reply({ manifest: library.take(library.exports.fk_manifest()) }); break;
        case "create": {
            const created = library.create(request.feature, request.options ?? null);
            instances.set(created.handle, created);
            reply({ handle: created.handle });
            break;
        }
        case "send": instance.send(request.input); reply({}); break;
        case "state": reply({ state: instance.state(), version: instance.version }); break;
        case "patch": reply({ patch: instance.statePatch(request.version) }); break;
        case "advance": instance.advanceClock(BigInt(request.nanoseconds)); reply({}); break;
        case "pending": reply({ effects: instance.pendingEffects, requests: instance.pendingRequests }); break;
        case "poll": reply({ event: instance.pollRequest() }); break;
        case "respond": instance.respond(request.id, request.result); reply({}); break;
        case "fail": instance.failRequest(request.id, request.message); reply({}); break;
        case "goto": reply({ version: instance.goto(request.version) }); break;
        case "history": reply({ history: instance.history }); break;
        case "destroy": instance.destroy(); instances.delete(request.handle); reply({}); break;
        default: reply({ error: { code: 12, status: "FK_ERR_INTERNAL", message: `unknown op ${request.op}` } });
        }
    } catch (error) {
        if (!(error instanceof FusionWasmError)) throw error;
        reply({ error: { code: error.code, status: error.status, message: error.detail } });
    }
}
