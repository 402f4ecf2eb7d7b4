/*
** fusionkit_sandbox.h: one sandboxed plugin behind include/fusionkit.h.
**
** libFusionSandbox.so exports every function of fusionkit.h that a sandboxed plugin has
** (see "Native or sandboxed: which to ship" in docs/plugin-libraries.md) and runs them on a plugin
** compiled to WebAssembly (a .wasm module built by scripts/build-wasm), inside WasmKit:
** each instance in its own instantiation of the module, each call with a time budget,
** each instance's memory under a cap. A C program or Python's fusionkit links it like a
** native library, after telling it which module to run:
**
**     #include "fusionkit.h"
**     #include "fusionkit_sandbox.h"
**
**     if (fk_sandbox_open("plugin.wasm", FK_NUL_TERMINATED, 0, 0) != FK_OK) {
**         fprintf(stderr, "%s\n", fk_last_error_message());
**         return 1;
**     }
**     fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter);   (as with any library)
**
** A fault in the plugin fails one call: FK_ERR_PLUGIN_TRAPPED (it trapped) or
** FK_ERR_PLUGIN_LIMIT (its time or memory ran out), and the instance is failed from then
** on (FK_ERR_INSTANCE_FAILED; fk_state() gives its last good state). The process and the
** other instances go on. Not exported: fk_manifest_summary, fk_feature_manifest,
** fk_state_into, fk_send_and_read, fk_send_and_read_call, fk_checkpoint,
** fk_restart_effects, fk_limit (optional in fusionkit.h; hosts look them up and do
** without).
*/
#ifndef FUSIONKIT_SANDBOX_H
#define FUSIONKIT_SANDBOX_H

#include "fusionkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chooses the module this library runs, loading it now: read whole, checked against the
** module contract (docs/wasm.md: its imports, its exports and their types, its manifest's
** ABI version) and described (its manifest read). Whatever the module hands back later
** is checked too: a text that is not what the contract says it is, or a refusal with
** FK_OK or the sandbox's own statuses, fails that call with FK_ERR_PLUGIN_TRAPPED.
**
** path, path_len        the .wasm file (UTF-8; path_len may be FK_NUL_TERMINATED).
** time_limit_ns         how long one call may run, in nanoseconds; 0: the default, 1 s;
**                       at most 24 hours.
**                       It is enforced as fuel (about one unit per WebAssembly
**                       operator), from the interpreter's speed measured once per process.
** memory_limit_bytes    how much linear memory one instance may have; 0: the default,
**                       64 MiB; from 65536 to 2^40.
**
** One module per load of the library: opening the same path again returns FK_OK and
** changes nothing; another path is refused. Until a module is opened, every other
** function fails with FK_ERR_INVALID_ARGUMENT, except fk_abi_version(),
** fk_status_name(), fk_last_error_message() and fk_free(); with
** FUSIONKIT_SANDBOX_MODULE set in the environment, the first such call opens that
** module with the default limits instead.
**
** Thread safety: may be called from any thread; calls racing to open one module open it
** once.
** Errors: FK_ERR_NULL_ARGUMENT (path NULL), FK_ERR_INVALID_UTF8,
**         FK_ERR_INVALID_ARGUMENT (a limit out of range, another module already open, or
**         a file that is not a module of the contract: the message says which). */
fk_status fk_sandbox_open(const char *path, size_t path_len, uint64_t time_limit_ns, uint64_t memory_limit_bytes);

#ifdef __cplusplus
}
#endif

#endif /* FUSIONKIT_SANDBOX_H */
