// The key bridge.instance() asks for when a page names none (bindings/web/fusionkit/
// instance-key.js); run by test_client.py with node. Prints one line per failure and
// exits non-zero on any.
import { instanceKey } from "../../bindings/web/fusionkit.js";

let failed = 0;
const check = (what, actual, expected) => {
    if (actual !== expected) {
        failed++;
        console.log(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
};

check("no options", instanceKey("wifi"), "wifi");
check("empty options", instanceKey("wifi", {}), "wifi");
check("a setting", instanceKey("wifi", { settings: { liveScan: false } }), "wifi.liveScan-false");
// The order options are written in does not matter: a demo page and the generic page
// asking for the same options share the instance.
check("options in name order", instanceKey("wifi", { settings: { liveScan: false }, clock: "manual", seed: 3 }),
    "wifi.clock-manual.seed-3.liveScan-false");
check("written in another order", instanceKey("wifi", { seed: 3, clock: "manual", settings: { liveScan: false } }),
    "wifi.clock-manual.seed-3.liveScan-false");
check("a state counts by its hash", /^counter\.state-[0-9a-f]{8}$/.test(instanceKey("counter", { state: { value: 2 } })), true);
check("other states, other keys",
    instanceKey("counter", { state: { value: 2 } }) !== instanceKey("counter", { state: { value: 3 } }), true);
check("other options, other keys",
    instanceKey("wifi", { settings: { liveScan: false } }) !== instanceKey("wifi", { settings: { liveScan: true } }), true);
check("characters the protocol refuses are replaced", instanceKey("Chores/counter", { clock: "manual" }), "Chores_counter.clock-manual");
const long = instanceKey("wifi", { settings: { greeting: "x".repeat(100) } });
check("a long key is cut to 64 characters of the protocol's alphabet", /^[A-Za-z0-9_.-]{1,64}$/.test(long), true);
check("a long key keeps the name and hashes the options", /^wifi\.[0-9a-f]{8}$/.test(long), true);

console.log(failed === 0 ? "ok" : `${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
