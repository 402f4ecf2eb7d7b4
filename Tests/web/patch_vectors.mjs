// The web client's JSON Patch (bindings/web/fusionkit/patch.js) held to the shared
// vectors (Tests/vectors/json-patch, docs/rules/json-patch.md); run by test_client.py
// with node. Prints one line per failure and exits non-zero on any.
import { readdirSync, readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

import { PatchError, applyPatch } from "../../bindings/web/fusionkit.js";

const folder = new URL("../vectors/json-patch/", import.meta.url);
let checked = 0;
let failed = 0;
for (const file of readdirSync(folder).filter((name) => name.endsWith(".json")).sort()) {
    const document = JSON.parse(readFileSync(new URL(file, folder), "utf8"));
    if (document.kind !== "apply") continue;
    for (const vector of document.cases) {
        checked++;
        const where = `${file}: ${vector.name}`;
        const before = JSON.stringify(vector.doc);
        let result;
        try {
            result = { value: applyPatch(vector.doc, vector.patch) };
        } catch (error) {
            result = { error };
        }
        if (JSON.stringify(vector.doc) !== before) {
            failed++;
            console.log(`${where}: the document given was changed`);
        } else if (vector.error !== undefined) {
            if (!(result.error instanceof PatchError)) {
                failed++;
                console.log(`${where}: expected a PatchError (${vector.error}), got ${result.error ?? JSON.stringify(result.value)}`);
            }
        } else if (result.error || !isDeepStrictEqual(result.value, vector.expected)) {
            failed++;
            console.log(`${where}: expected ${JSON.stringify(vector.expected)}, got ${result.error ?? JSON.stringify(result.value)}`);
        }
    }
}
if (checked === 0) {
    console.log("no patch vectors found");
    process.exit(1);
}
console.log(`${checked} checked, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
