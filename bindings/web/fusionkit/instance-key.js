// The instance key a page's `bridge.instance(feature, {options})` asks for when it names
// none: one rule for every page, kept beside the bridge client rather than in a page.

/**
 * A short stable hash (FNV-1a, 32 bits over UTF-16 code units) as 8 hex digits.
 * @param {string} text
 * @returns {string}
 */
function hash(text) {
    let value = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
        value ^= text.charCodeAt(i);
        value = Math.imul(value, 0x01000193) >>> 0;
    }
    return value.toString(16).padStart(8, "0");
}

/**
 * The instance key for a feature made with these options: the feature's name alone
 * without options, else the name and the options ("wifi.liveScan-false"), so that pages
 * asking for different options never share an instance, and pages asking for the same
 * (a demo page and the generic page) do. Options and settings are taken in name order;
 * a `state` counts by its hash. At most 64 characters of A–Z a–z 0–9 _ . - (what the
 * protocol's `create` takes): a longer key is cut to the name and a hash of the options.
 * @param {string} feature
 * @param {{[name: string]: unknown}} [options]
 * @returns {string}
 */
export function instanceKey(feature, options) {
    const clean = (/** @type {string} */ text) => String(text).replace(/[^A-Za-z0-9_.-]/g, "_");
    if (!options || Object.keys(options).length === 0) return clean(feature).slice(0, 64);
    const parts = [];
    for (const name of Object.keys(options).sort()) {
        const value = options[name];
        if (name === "settings" && value && typeof value === "object") {
            const settings = /** @type {{[name: string]: unknown}} */ (value);
            for (const setting of Object.keys(settings).sort()) parts.push(`${setting}-${JSON.stringify(settings[setting])}`);
        } else if (name === "state") {
            parts.push(`state-${hash(JSON.stringify(value))}`);
        } else {
            parts.push(`${name}-${typeof value === "string" ? value : JSON.stringify(value)}`);
        }
    }
    const key = clean(`${feature}.${parts.join(".")}`);
    if (key.length <= 64) return key;
    return `${clean(feature).slice(0, 50)}.${hash(JSON.stringify(options))}`;
}
