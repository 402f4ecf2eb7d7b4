// The wasm build of the probe, in node: one JSON text per line on stdin, one answer per
// line on stdout, as the host build answers. The module imports four WASI functions
// (wasi-libc's printing and random seed); they get what a page would give them.
import { readFileSync } from "node:fs";
import { randomFillSync } from "node:crypto";

const [modulePath] = process.argv.slice(2);
let memory;
const wasi = {
    fd_write(fd, iovs, count, written) {
        const view = new DataView(memory.buffer);
        let total = 0;
        for (let i = 0; i < count; i++) {
            const base = view.getUint32(iovs + i * 8, true), length = view.getUint32(iovs + i * 8 + 4, true);
            process.stderr.write(new Uint8Array(memory.buffer, base, length));
            total += length;
        }
        view.setUint32(written, total, true);
        return 0;
    },
    fd_close: () => 0,
    fd_seek: () => 70, // ESPIPE: nothing to seek
    random_get(buffer, length) {
        randomFillSync(new Uint8Array(memory.buffer, buffer, length));
        return 0;
    },
};
const { instance } = await WebAssembly.instantiate(readFileSync(modulePath), { wasi_snapshot_preview1: wasi });
memory = instance.exports.memory;
const encoder = new TextEncoder(), decoder = new TextDecoder();
const lines = readFileSync(0, "utf8").split("\n").filter((line) => line.length > 0);
for (const line of lines) {
    const bytes = encoder.encode(line);
    const input = instance.exports.probe_alloc(bytes.length);
    new Uint8Array(memory.buffer, input, bytes.length).set(bytes);
    const output = instance.exports.probe_run(input, bytes.length);
    const heap = new Uint8Array(memory.buffer);
    let end = output;
    while (heap[end] !== 0) end++;
    process.stdout.write(decoder.decode(heap.subarray(output, end)) + "\n");
}
