// address.js: where the bridge is (`connect()`'s URL, made absolute against the page) and
// how a socket asks for its session (the subprotocols offered, docs/web-protocol.md).

import { FusionError } from "./errors.js";

/** ws(s)://<this page's host>/ws: the bridge that served the page. */
export function defaultURL() {
    const location = globalThis.location;
    if (!location || !location.host) throw new FusionError("CLIENT_NO_URL", "connect() needs a URL outside a page served over http(s)");
    return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
}

/** A relative URL ("/ws") made absolute against the page, with ws: or wss:. */
export function absoluteURL(url) {
    if (/^wss?:/i.test(url) || !globalThis.location) return url;
    const absolute = new URL(url, globalThis.location.href);
    if (absolute.protocol === "http:") absolute.protocol = "ws:";
    if (absolute.protocol === "https:") absolute.protocol = "wss:";
    return absolute.href;
}

/** The subprotocols offered: the protocol's name, and the session to rejoin. The id goes
 *  there, not in the URL, which access logs keep (docs/security.md); one that is not
 *  32 hex digits (a stale or edited storage) is left out, and a new session starts. */
export function protocols(session) {
    return typeof session === "string" && /^[0-9a-f]{32}$/.test(session) ? ["fusion", `fusion.session.${session}`] : ["fusion"];
}
