// Type declarations for fusionkit.js, the browser client of `fusion serve`
// (docs/web-protocol.md). For editors; the module itself is plain JavaScript.

/** Any JSON value. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** An input: a case name ("increase") or a case with its fields ({"answerChanged": {"text": "hi"}}). */
export type Input = string | { [name: string]: { [field: string]: JSONValue } | null };

/** A feature's types: its state and the inputs it takes. `fusion types --lang ts` writes
 *  a `Features` map, feature name → FeatureTypes, for a library. */
export interface FeatureTypes {
    state: unknown;
    input: unknown;
}

/** What a Bridge knows of features without generated types: any name, any input. */
export type AnyFeatures = { [feature: string]: { state: any; input: Input } };

/** A map of feature names to their types (an interface or a type literal). */
export type FeatureMap<F> = { [K in keyof F]: FeatureTypes };

/** The case names of input type I that take fields ("networkTapped"). */
export type FieldCaseName<I> = I extends string ? never : keyof I & string;

/** The fields of case K of input type I ({id: string}). */
export type CaseFields<I, K extends string> = I extends { [P in K]: infer F } ? Exclude<F, null> : never;

/** The bridge's connection: "connecting" (the first time), "open", "reconnecting"
 *  (dropped, trying again with a growing delay), "closed" (by the page, or for good). */
export type Status = "connecting" | "open" | "reconnecting" | "closed";

/** A host request still open. */
export interface HostRequest {
    kind: string;
    payload: JSONValue;
}

export type RequestID = number | string;

/** Creation options, as `fk_create_with_options` takes them. */
export interface CreateOptions {
    /** A state to start from. */
    state?: JSONValue;
    /** A seed for the instance's random source. */
    seed?: number;
    /** "manual": time moves only with `advanceClock`. */
    clock?: "manual" | string;
    /** "host": host requests come to the page (`request` messages) instead of the library's built-in answers. */
    requests?: "host" | string;
    /** Feature settings, such as {"liveScan": false} for wifi. */
    settings?: { [name: string]: JSONValue };
    [option: string]: JSONValue | undefined;
}

export interface ConnectOptions {
    /** The WebSocket class to use (default: globalThis.WebSocket). */
    WebSocket?: { new (url: string): WebSocket };
    /** Where the session id is kept (default: sessionStorage; null: nowhere). */
    storage?: Pick<Storage, "getItem" | "setItem"> | null;
    /** The storage key (default "fusionkit.session"). */
    storageKey?: string;
    /** A session id to join instead of the stored one; null for a new session. */
    session?: string | null;
    /** Reconnect after a dropped connection (default true). */
    reconnect?: boolean;
    /** First reconnect delay in ms (default 250), doubled after each failed attempt... */
    minDelay?: number;
    /** ...up to this (default 5000). */
    maxDelay?: number;
}

/** The library the server hosts, from the welcome. */
export interface LibraryInfo {
    name: string;
    version: string;
    abiVersion: number;
}

/** The server's limits, from the welcome. */
export interface Limits {
    maxMessageBytes: number;
    messagesPerSecond: number;
    instancesPerSession: number;
    [name: string]: number;
}

/** A field of an input case, as the manifest describes it. */
export interface ManifestField {
    name: string;
    /** A short type name for people: "string", "boolean", "integer", "number", "string?", "[Network]". */
    type: string;
    required: boolean;
    schema?: JSONValue;
}

export interface ManifestInput {
    name: string;
    fields: ManifestField[];
}

export interface ManifestFeature {
    /** As a page creates it: "todo", or "Chores/counter" when the bridge serves two libraries with a "counter". */
    name: string;
    /** The library it is in, when the bridge serves several. */
    library?: string;
    summary: string;
    inputs: ManifestInput[];
    inputSchema?: JSONValue;
    stateSchema: JSONValue;
}

/** `fk_manifest()`: what the library says about itself. */
export interface Manifest {
    abiVersion: number;
    library: { name: string; version: string };
    /** Every library, when the bridge serves several (`library` is then the first). */
    libraries?: { name: string; version: string }[];
    features: ManifestFeature[];
    [key: string]: unknown;
}

/**
 * A refusal. From the server: `status` is a library status (`FK_ERR_…`) or a bridge
 * one (`BRIDGE_…`), `re` the id of the refused message. From this module (`re` null):
 * `CLIENT_NOT_CONNECTED` (called while reconnecting), `CLIENT_DISCONNECTED` (the
 * connection dropped before the reply), `CLIENT_CLOSED` (after `close()`),
 * `CLIENT_DESTROYED` (the instance is gone), `CLIENT_CONNECT_FAILED` (the first
 * connection failed), `CLIENT_MALFORMED_MESSAGE` (the server sent something that is not JSON),
 * `CLIENT_NO_URL` (connect() without a URL outside an http(s) page), `CLIENT_NO_WEBSOCKET`,
 * `CLIENT_BAD_ARGUMENT` (a wrong argument, such as a feature name that is not a string),
 * `CLIENT_BAD_PATCH` (a PatchError); in the page (connect({wasm})):
 * `CLIENT_WASM_UNAVAILABLE` (the module could not be loaded), `CLIENT_WASM_TRAPPED` (the
 * module stopped on a trap, and the page's bridge closed). Every error the module raises is a FusionError.
 * A refusal the server could not tie to its message (`re` null: rate limit, size) is given
 * to the oldest call still waiting, since replies come in the order messages were sent.
 */
export class FusionError extends Error {
    constructor(status: string, message: string, re?: number | string | null);
    status: string;
    message: string;
    re: number | string | null;
}

/** A JSON Patch that does not apply to the document it was given (status `CLIENT_BAD_PATCH`). */
export class PatchError extends FusionError {
    constructor(message: string);
}

/** The input shorthand (docs/rules/input-shorthand.md): ("increase") → "increase",
 *  ("answerChanged", {text: "hi"}) → {answerChanged: {text: "hi"}}, an input object as it
 *  is. Anything else throws a FusionError with status `CLIENT_BAD_ARGUMENT`. */
export function normalizeInput(input: string | Record<string, JSONValue>, fields?: Record<string, JSONValue>): JSONValue;

/** The key `Bridge.instance` asks for when given none: the feature's name without options,
 *  else the name and the options in name order ("wifi.liveScan-false"; a `state` by its
 *  hash), at most 64 characters of A–Z a–z 0–9 _ . - (longer: the name and a hash). */
export function instanceKey(feature: string, options?: CreateOptions): string;

/** RFC 6901: the reference tokens of a pointer ("" → [], "/a~1b/0" → ["a/b", "0"]). */
export function parsePointer(pointer: string): string[];

/** RFC 6902: applies add, remove, replace, move, copy and test; returns a new document
 *  and never changes the one given (unchanged parts are shared). Throws PatchError. */
export function applyPatch<T = JSONValue>(document: T, patch: Array<{ op: string; path: string; from?: string; value?: JSONValue }>): T;

/** Equality as JSON sees it (object keys in any order). */
export function jsonEqual(a: JSONValue, b: JSONValue): boolean;

/**
 * Opens a bridge. `url` defaults to ws(s)://<this page's host>/ws. Resolves once the
 * server has welcomed the session; rejects with a FusionError if that first connection
 * fails. The session id is kept in sessionStorage ("fusionkit.session"), so a reload
 * rejoins the session; a dropped connection is rejoined the same way.
 */
export function connect<F extends FeatureMap<F> = AnyFeatures>(url?: string, options?: ConnectOptions): Promise<Bridge<F>>;
/**
 * Runs the library in the page: loads its WebAssembly module (scripts/build-wasm) from
 * `wasm` (a URL, or the module's bytes) and gives the same Bridge and Instance API, with
 * no server (docs/wasm.md). `transport` is then "wasm", `session` null. A reload gets the
 * page's instances back from their states, saved in `storage` (default sessionStorage)
 * when the page is hidden. Rejects with `CLIENT_WASM_UNAVAILABLE` when the module cannot
 * be fetched or compiled.
 */
export function connect<F extends FeatureMap<F> = AnyFeatures>(local: LocalOptions): Promise<Bridge<F>>;

/** What connect() takes to run a library in the page. */
export interface LocalOptions {
    /** The module: its URL ("/FusionExamples.wasm"), or its bytes. */
    wasm: string | URL | ArrayBuffer | Uint8Array;
    /** Where states are saved for a reload (default: sessionStorage; null: nowhere). */
    storage?: Pick<Storage, "getItem" | "setItem"> | null;
}

/** A connection to a bridge. `F` maps each feature's name to its types (the `Features`
 *  of a file `fusion types --lang ts` wrote): `create("wifi")` then gives an instance
 *  that takes only Wi-Fi inputs and whose state is the Wi-Fi state. */
export class Bridge<F extends FeatureMap<F> = AnyFeatures> {
    /** Where the features run: "bridge" (fusion serve) or "wasm" (in the page). */
    readonly transport?: "bridge" | "wasm";
    /** The WebSocket URL, without the session parameter (in the page: the module's URL). */
    readonly url: string;
    /** The session id (32 hex digits). */
    readonly session: string | null;
    /** The library the server hosts (the first, when it serves several). */
    readonly library: LibraryInfo | null;
    /** Every library the server hosts. */
    readonly libraries: LibraryInfo[] | null;
    readonly limits: Limits | null;
    readonly status: Status;

    /** The library's manifest. */
    manifest(): Promise<Manifest>;
    /** A new instance (always new; with `key` it is named by it, and a taken key is an error). */
    create<N extends keyof F & string>(feature: N, args?: { key?: string; options?: CreateOptions }): Promise<Instance<F[N]["state"], F[N]["input"]>>;
    /** The session's instance named `key` (default: `instanceKey(feature, options)`, the
     *  feature's name with the options when there are any), made if there is none: after a
     *  reload the page gets its old instance back. `options` apply only when it is made. */
    instance<N extends keyof F & string>(feature: N, args?: { key?: string | null; options?: CreateOptions }): Promise<Instance<F[N]["state"], F[N]["input"]>>;
    /** Calls fn(status) now and on every change; returns a function that stops it. */
    onStatus(fn: (status: Status) => void): () => void;
    /** Errors no pending call receives (refusals without an id, a session limit, a failed
     *  automatic resync, an answer from an onRequest handler the server refused, an
     *  instance whose state could not be read after a change: the server's `failed`). */
    onError(fn: (error: FusionError) => void): () => void;
    /** Closes for good (no reconnecting); pending calls reject with CLIENT_CLOSED. */
    close(): void;
}

/** An instance of a feature: `S` its state, `I` its inputs (from a `Features` map). */
export class Instance<S = any, I = Input> {
    /** The instance's id in the session: its key, or a name the server gave ("#1"). */
    readonly id: string;
    readonly feature: string;
    /** The state at `version` (undefined before the first). Never changed in place:
     *  every change is a new top-level object. Do not change it yourself. */
    readonly state: S | undefined;
    readonly version: number | null;
    /** Whether the create found the instance already there (instance() after a reload). */
    readonly existing: boolean;
    readonly destroyed: boolean;
    /** The host requests open now, id → {kind, payload}; a new Map on every change. */
    readonly requests: ReadonlyMap<RequestID, HostRequest>;

    /** Applies an input; resolves with the version after it once the state it produced is
     *  here; rejects with a FusionError. */
    send(input: I): Promise<{ version: number }>;
    /** The shorthand: send("networkTapped", {id: "blob"}) is send({networkTapped: {id: "blob"}}). */
    send<K extends FieldCaseName<I>>(name: K, fields: CaseFields<I, K>): Promise<{ version: number }>;
    /** Calls fn(state, version) now if a state is known and after every change. */
    onState(fn: (state: S, version: number) => void): () => void;
    /** Answers host requests (the open ones and every later one): the handler's result,
     *  or what its Promise resolves to, is sent as `respond`; a throw or rejection as
     *  `fail` with its message. `signal` aborts when the feature cancels the request.
     *  One handler at a time; the returned function removes it. */
    onRequest(handler: (kind: string, payload: any, id: RequestID, signal?: AbortSignal) => unknown): () => void;
    /** Calls fn(requests) now and whenever the open host requests change. */
    onRequests(fn: (requests: ReadonlyMap<RequestID, HostRequest>) => void): () => void;
    /** Calls fn() when the instance is destroyed (by this page or another of the session). */
    onDestroyed(fn: () => void): () => void;
    /** Answers a host request. */
    respond(id: RequestID, result: JSONValue): Promise<{ version: number }>;
    /** Answers a host request with an error. */
    fail(id: RequestID, message: string): Promise<{ version: number }>;
    /** Moves a manual clock; resolves once the woken effects have settled. */
    advanceClock(seconds: number): Promise<{ version: number }>;
    /** Asks for the whole state again. */
    resync(): Promise<{ version: number }>;
    /** Destroys the instance. */
    destroy(): Promise<void>;
}
