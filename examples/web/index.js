// The index: the manifest's features, with links to their pages.
import { $, h, Page, setText } from "/common.js";

const page = new Page();
// The elements this page draws into, found once by their data-test names (listed at the
// top of the page's HTML); every page script starts this way.
const list = $('[data-test="features"]');

/** The library the demo pages of examples/web draw: another library's feature of the
 *  same name (Chores' "counter") is not the feature a demo page knows. */
const DEMO_LIBRARY = "FusionExamples";

/**
 * Whether examples/web has a demo page for the feature.
 * @param {string} name
 * @param {string | undefined} library
 */
async function hasDemo(name, library) {
    if (library !== DEMO_LIBRARY) return false;
    // "FusionExamples/counter": served beside a library with a "counter" of its own, the
    // demo page (which opens "counter") cannot tell them apart; the generic page can.
    if (name.includes("/")) return false;
    if (["index", "feature"].includes(name)) return false; // pages of their own, not demos
    try {
        const response = await fetch(`/${encodeURIComponent(name)}.html`, { method: "HEAD" });
        return response.ok;
    } catch {
        return false;
    }
}

/**
 * @param {import("/fusionkit.js").ManifestFeature} feature
 * @param {boolean} demo
 */
function card(feature, demo) {
    const generic = `/feature.html?feature=${encodeURIComponent(feature.name)}`;
    return h("article", { class: "card feature-card", "data-test": "feature", "data-name": feature.name },
        h("h2", { "data-test": "feature-name" }, feature.name),
        feature.library ? h("p", { class: "eyebrow", "data-test": "feature-library" }, feature.library) : null,
        h("p", { class: "summary", "data-test": "summary" }, feature.summary || "No summary."),
        h("div", { class: "chips", "aria-label": "Inputs" },
            feature.inputs.map((input) => h("span", {
                class: "pill mono",
                "data-test": "input-name",
                title: input.fields.map((field) => `${field.name}: ${field.type}`).join(", ") || "no fields",
            }, input.name))),
        h("div", { class: "links" },
            demo ? h("a", { class: "btn small", href: `/${encodeURIComponent(feature.name)}.html`, "data-test": "demo-link" }, "Open demo") : null,
            h("a", { class: demo ? "btn small secondary" : "btn small", href: generic, "data-test": "generic-link" }, "Generic page")));
}

try {
    const bridge = await page.connect();
    const manifest = await bridge.manifest();
    // Every library the bridge serves (`fusion serve LIB1 LIB2`), each feature marked with its own.
    const libraries = manifest.libraries ?? [manifest.library];
    setText($('[data-test="library"]'), libraries.map((library) => `${library.name} ${library.version}`).join(" · "));
    document.title = `${libraries.map((library) => library.name).join(" + ")} · FusionKit`;
    const demos = await Promise.all(manifest.features.map((feature) => hasDemo(feature.name, feature.library ?? manifest.library?.name)));
    list.replaceChildren(...manifest.features.map((feature, index) => card(feature, demos[index])));
    page.markReady();
} catch (error) {
    page.showError(error);
}
