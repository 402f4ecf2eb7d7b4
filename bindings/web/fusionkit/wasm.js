// wasm.js: a FusionKit library's WebAssembly module (scripts/build-wasm), loaded and
// called from JavaScript: the host's side of docs/wasm.md. The page's local transport
// (local.js) is built on it; node runs it in Tests/wasm.
//
//   const library = await loadLibrary(bytes);
//   const counter = library.create("counter", { seed: 7, clock: "manual" });
//   counter.send('"increase"'); counter.state(); counter.advanceClock(1_000_000_000n);
//
// Text crosses as UTF-8 in the module's memory; errors are thrown as FusionWasmError, a
// FusionError with the native library's status (`status`: its name, `code`: its number)
// and message.

import { FusionError } from "./errors.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class FusionWasmError extends FusionError {
    constructor(code, status, message) {
        super(status, message); // name "FusionError": a page reads it as the bridge's

        /** The status's number (include/fusionkit.h's fk_status). */
        this.code = code;
        /** The library's message (the same as `message`). */
        this.detail = message;
    }
}

// The WASI calls wasi-libc makes (printing a fatal error, seeding hashing), answered as a
// page can: to the console, and from crypto.getRandomValues.
function wasiImports(memory) {
    return {
        fd_write(fd, iovs, count, written) {
            const view = new DataView(memory().buffer);
            let total = 0, text = "";
            for (let i = 0; i < count; i++) {
                const base = view.getUint32(iovs + i * 8, true), length = view.getUint32(iovs + i * 8 + 4, true);
                text += decoder.decode(new Uint8Array(memory().buffer, base, length));
                total += length;
            }
            if (text) console.error(text);
            view.setUint32(written, total, true);
            return 0;
        },
        fd_close: () => 0,
        fd_seek: () => 70, // ESPIPE: nothing to seek
        random_get(buffer, length) {
            globalThis.crypto.getRandomValues(new Uint8Array(memory().buffer, buffer, length));
            return 0;
        },
    };
}

/** Compiles and instantiates a module from its bytes (an ArrayBuffer, a typed array, or
 *  a Response: then compiled while it streams). */
export async function loadLibrary(bytes) {
    let exports;
    const imports = { wasi_snapshot_preview1: wasiImports(() => exports.memory) };
    const { instance } = typeof Response !== "undefined" && bytes instanceof Response
        ? await WebAssembly.instantiateStreaming(bytes, imports)
        : await WebAssembly.instantiate(bytes, imports);
    exports = instance.exports;
    return new WasmLibrary(exports);
}

class WasmLibrary {
    constructor(exports) {
        this.exports = exports;
        // Room in the module's memory kept for inputs, grown when one does not fit: an
        // input is encoded straight into it, with no allocation per send.
        this.scratch = 0;
        this.scratchSize = 0;
    }

    // Encodes text into the scratch room; returns its length there (valid until the next call).
    writeScratch(text) {
        const most = text.length * 3; // UTF-16 code units to UTF-8 bytes, at worst
        if (most > this.scratchSize) {
            if (this.scratch) this.exports.fk_free(this.scratch);
            this.scratchSize = Math.max(256, most * 2);
            this.scratch = this.exports.fk_alloc(this.scratchSize);
        }
        return encoder.encodeInto(text, new Uint8Array(this.exports.memory.buffer, this.scratch, this.scratchSize)).written;
    }

    // Copies text into the module's memory; returns [pointer, length] (free the pointer).
    write(text) {
        const bytes = encoder.encode(text);
        const pointer = this.exports.fk_alloc(bytes.length);
        new Uint8Array(this.exports.memory.buffer, pointer, bytes.length).set(bytes);
        return [pointer, bytes.length];
    }

    // Reads and frees a NUL-terminated string the module returned.
    take(pointer) {
        const heap = new Uint8Array(this.exports.memory.buffer);
        const text = decoder.decode(heap.subarray(pointer, heap.indexOf(0, pointer)));
        this.exports.fk_free(pointer);
        return text;
    }

    error(code) {
        const status = this.take(this.exports.fk_status_name(code));
        return new FusionWasmError(code, status, this.take(this.exports.fk_last_error_message()));
    }

    get featureNames() {
        return JSON.parse(this.take(this.exports.fk_feature_names()));
    }

    /** The library's manifest, as the native library's fk_manifest writes it (parsed). */
    get manifest() {
        return JSON.parse(this.take(this.exports.fk_manifest()));
    }

    create(feature, options = null) {
        const [name, nameLength] = this.write(feature);
        const [text, textLength] = options === null ? [0, 0] : this.write(JSON.stringify(options));
        const handle = this.exports.fk_create(name, nameLength, text, textLength);
        this.exports.fk_free(name);
        if (text) this.exports.fk_free(text);
        if (handle === 0) throw this.error(this.exports.fk_last_error_status());
        return new WasmInstance(this, handle);
    }
}

class WasmInstance {
    constructor(library, handle) {
        this.library = library;
        this.handle = handle;
    }

    // Applies an input, given as JSON text.
    send(json) {
        const length = this.library.writeScratch(json);
        const status = this.library.exports.fk_send(this.handle, this.library.scratch, length);
        if (status !== 0) throw this.library.error(status);
    }

    // The state's JSON text, as the native library writes it.
    state() {
        return this.library.take(this.library.exports.fk_state(this.handle));
    }

    get version() {
        return Number(this.library.exports.fk_version(this.handle));
    }

    // The patch from `version` to the state now, parsed: {from, to, patch} or, when that
    // version is not kept or the whole state is smaller, {from: null, to, state}.
    statePatch(version) {
        const pointer = this.library.exports.fk_state_patch(this.handle, BigInt(version));
        if (pointer === 0) throw this.library.error(this.library.exports.fk_last_error_status());
        return JSON.parse(this.library.take(pointer));
    }

    // Moves a manual clock (nanoseconds, a BigInt) and fires what is due.
    advanceClock(nanoseconds) {
        const status = this.library.exports.fk_advance_clock(this.handle, BigInt(nanoseconds));
        if (status !== 0) throw this.library.error(status);
    }

    // Tells an instance on the system clock that this much of the host's time passed.
    elapse(nanoseconds) {
        const status = this.library.exports.fk_elapse(this.handle, BigInt(nanoseconds));
        if (status !== 0) throw this.library.error(status);
    }

    // Nanoseconds until the next timed effect fires, or null.
    get nextWake() {
        const wake = this.library.exports.fk_next_wake(this.handle);
        return wake < 0n ? null : wake;
    }

    // Returns to a kept version's state (option "history"), as a new version; the version reached.
    goto(version) {
        const reached = this.library.exports.fk_goto(this.handle, BigInt(version));
        if (reached === 0n) throw this.library.error(this.library.exports.fk_last_error_status());
        return Number(reached);
    }

    // The versions kept and what made each (fk_history), or null when none are kept.
    get history() {
        const pointer = this.library.exports.fk_history(this.handle);
        return pointer === 0 ? null : JSON.parse(this.library.take(pointer));
    }

    get pendingEffects() {
        return this.library.exports.fk_pending_effects(this.handle);
    }

    // Host requests waiting for an answer (option requests: "host").
    get pendingRequests() {
        return this.library.exports.fk_pending_requests(this.handle);
    }

    // The next host request or cancellation, parsed ({event: "request", id, kind, payload}
    // or {event: "cancel", id}); null when none waits.
    pollRequest() {
        const pointer = this.library.exports.fk_poll_request(this.handle);
        if (pointer === 0) {
            const status = this.library.exports.fk_last_error_status();
            if (this.library.exports.fk_pending_effects(this.handle) < 0) throw this.library.error(status);
            return null;
        }
        return JSON.parse(this.library.take(pointer));
    }

    // Answers open request `id` with a result given as JSON text.
    respond(id, json) {
        this.answer(this.library.exports.fk_respond, id, json);
    }

    // Answers open request `id` with an error: the host's words.
    failRequest(id, message) {
        this.answer(this.library.exports.fk_fail_request, id, message);
    }

    answer(call, id, text) {
        const [pointer, length] = this.library.write(text);
        const status = call(this.handle, BigInt(id), pointer, length);
        this.library.exports.fk_free(pointer);
        if (status !== 0) throw this.library.error(status);
    }

    destroy() {
        this.library.exports.fk_destroy(this.handle);
    }
}
