// The example page's query values (examples/web/common.js, optionsFromQuery) held to
// the shared input-shorthand vectors of kind "value" (Tests/vectors/input-shorthand,
// docs/rules/input-shorthand.md); run by test_client.py with node. Each value goes in as
// a setting of the query string, as a person writes `?liveScan=false`. Prints one line per
// failure and exits non-zero on any.
import { readdirSync, readFileSync } from "node:fs";
import { register } from "node:module";
import { isDeepStrictEqual } from "node:util";

// The page imports "/fusionkit.js", the path `fusion serve` serves the client at.
const client = new URL("../../bindings/web/fusionkit.js", import.meta.url).href;
const hooks = `export async function resolve(specifier, context, next) {
    return next(specifier === "/fusionkit.js" ? ${JSON.stringify(client)} : specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
const { optionsFromQuery } = await import("../../examples/web/common.js");

const folder = new URL("../vectors/input-shorthand/", import.meta.url);
let checked = 0;
let failed = 0;
for (const file of readdirSync(folder).filter((name) => name.endsWith(".json")).sort()) {
    const document = JSON.parse(readFileSync(new URL(file, folder), "utf8"));
    if (document.kind !== "value") continue;
    for (const vector of document.cases) {
        checked++;
        const search = `?setting=${encodeURIComponent(vector.text)}`;
        const value = optionsFromQuery(search)?.settings?.setting;
        if (!isDeepStrictEqual(value, vector.json)) {
            failed++;
            console.log(`${file}: ${vector.name}: ${search} gave ${JSON.stringify(value)}, expected ${JSON.stringify(vector.json)}`);
        }
    }
}
if (checked === 0) {
    console.log("no value vectors found");
    process.exit(1);
}
console.log(`${checked} checked, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
