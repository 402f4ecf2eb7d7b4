// The web client's input shorthand held to the shared vectors
// (Tests/vectors/input-shorthand, docs/rules/input-shorthand.md); run by
// test_client.py with node. Prints one line per failure and exits non-zero on any.
import { readdirSync, readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

import { FusionError, normalizeInput } from "../../bindings/web/fusionkit.js";

const folder = new URL("../vectors/input-shorthand/", import.meta.url);
let checked = 0;
let failed = 0;
for (const file of readdirSync(folder).filter((name) => name.endsWith(".json")).sort()) {
    const document = JSON.parse(readFileSync(new URL(file, folder), "utf8"));
    if (document.kind !== "structured") continue;
    for (const vector of document.cases) {
        checked++;
        const where = `${file}: ${vector.name}`;
        let result;
        try {
            result = { value: normalizeInput(vector.input, vector.fields) };
        } catch (error) {
            result = { error };
        }
        if (vector.error) {
            if (!(result.error instanceof FusionError)) {
                failed++;
                console.log(`${where}: expected a FusionError, got ${JSON.stringify(result.value)}`);
            }
        } else if (result.error || !isDeepStrictEqual(result.value, vector.json)) {
            failed++;
            console.log(`${where}: expected ${JSON.stringify(vector.json)}, got ${result.error ?? JSON.stringify(result.value)}`);
        }
    }
}
if (checked === 0) {
    console.log("no structured vectors found");
    process.exit(1);
}
console.log(`${checked} checked, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
