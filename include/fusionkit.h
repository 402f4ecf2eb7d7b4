/*
** fusionkit.h: the C interface of a FusionKit feature library.
**
** A FusionKit library (for example libFusionExamples.so) holds one or more
** *features*: the logic of a screen, written once in Swift. Through the functions
** below a program in any language creates an *instance* of a feature, sends it
** *inputs* as JSON, reads its *state* as JSON, and hears when the state changes.
**
**     fk_instance counter;
**     if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) != FK_OK) {
**         fprintf(stderr, "%s\n", fk_last_error_message());
**         return 1;
**     }
**     fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
**     char *json; size_t len; uint64_t version;
**     if (fk_state(counter, &json, &len, &version) == FK_OK) {
**         printf("v%llu %s\n", (unsigned long long)version, json);  // {"value":1,...}
**         fk_free(json);
**     }
**     fk_destroy(counter);
**
** CONVENTIONS (they hold for every function unless its comment says otherwise)
**
** Versioning.  FK_ABI_VERSION below is the version this header describes;
**   fk_abi_version() is the version the loaded library speaks. A host checks that
**   they are equal before any other call. The version changes only when an existing
**   function changes meaning; adding functions or status codes does not change it.
**
** Optional functions.  Functions added to the ABI after its first release may be
**   missing from a library built before them: fk_create_with_options,
**   fk_state_patch, fk_state_into, fk_send_and_read, fk_send_and_read_call,
**   fk_advance_clock, fk_pending, fk_next_wake, fk_checkpoint, fk_restart_effects,
**   fk_set_request_handler, fk_poll_request, fk_respond,
**   fk_fail_request, fk_history, fk_goto, fk_limit, fk_manifest_summary,
**   fk_feature_manifest. A host looks each one up (dlsym) before it relies on it;
**   the manifest lists those a library has under "optionalFunctions". Every other
**   function is always there.
**
** Status codes.  Every call that can fail returns an fk_status: FK_OK or one of the
**   FK_ERR_ codes. Codes are only ever added, never renumbered. After a failure,
**   fk_last_error_message() says in words what went wrong: which input, which
**   field, where in the JSON.
**
** Bad input changes nothing.  A call that fails leaves every instance exactly as it
**   was: its state and its version are unchanged. No argument can crash the
**   process: NULL pointers, stale or made-up handles and malformed text all give a
**   status code. Two codes are reports on work done, not refusals, and each function
**   that returns them says so: FK_ERR_UNSETTLED (on a manual clock, the call did its
**   work and an effect it set going cannot settle) and FK_ERR_INTERNAL from a call
**   that applies an input and then reads the state.
**
** Text.  All text is UTF-8. Text arguments are a pointer and a length in bytes;
**   the length may be FK_NUL_TERMINATED for a NUL-terminated string. The library
**   never keeps a pointer it is given: it copies what it needs before returning.
**
** Ownership.  Each pointer is marked:
**   borrowed: the library owns it; do not free it; valid as long as the comment says.
**   owned:    the caller owns it and must release it with fk_free(), exactly once.
**
** JSON.  Inputs are externally tagged: a case without payload is the bare string
**   "increase" or {"increase":{}}; a case with payload is {"networkTapped":{"id":"a"}}.
**   State is a JSON object whose fields are named as in the feature's Swift code;
**   every field is present (an absent optional value is null).
**
** What the parser refuses that RFC 8259 allows.  The library's JSON parser reads
**   RFC 8259 text, with these refusals, each giving FK_ERR_MALFORMED_JSON (or
**   FK_ERR_INVALID_UTF8) and a message that says where:
**   - An object with the same key twice, even with the same value: {"a":1,"a":1}.
**     RFC 8259 says keys SHOULD be unique and leaves duplicates to each parser, and
**     parsers disagree (first wins, last wins, error). An input such as
**     {"networkTapped":{"id":"a","id":"b"}} would mean one thing here and another in
**     the host that wrote it, so it is refused rather than guessed. Of the "must
**     accept" files of nst/JSONTestSuite, the two with duplicate keys are the only
**     ones refused.
**   - Text that is not UTF-8 (RFC 8259 requires UTF-8 between systems), a byte
**     order mark before the value, and \u escapes that are lone or reversed UTF-16
**     surrogates: they name no character, and state must stay valid UTF-8.
**   - A number whose magnitude overflows a double (1e400, -1e400): no double
**     holds it. An integer too large for 64 bits is read as the nearest double,
**     and a number too close to zero for a double (1e-400) as 0; RFC 8259 lets a
**     parser limit range and precision.
**   - Nesting deeper than the FK_LIMIT_JSON_DEPTH limit (512 levels unless set;
**     see fk_limit()): FK_ERR_MALFORMED_JSON, whose message names the limit, so
**     that a hostile input cannot exhaust the stack. RFC 8259 lets a parser limit
**     nesting; it sets no number.
**
** Threads.  Every function may be called from any thread. An instance may be used
**   from several threads at once: its inputs are applied one at a time, in the
**   order the calls acquire it. fk_last_error_message() is per thread.
*/
#ifndef FUSIONKIT_H
#define FUSIONKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. Compare with fk_abi_version(). */
#define FK_ABI_VERSION 1

/* A length meaning "up to the terminating NUL byte". */
#define FK_NUL_TERMINATED ((size_t)-1)

/* ---------------------------------------------------------------------------
** Status codes
*/
typedef int32_t fk_status;

#define FK_OK                        0  /* Success. */
#define FK_ERR_NULL_ARGUMENT         1  /* A required pointer argument was NULL. */
#define FK_ERR_INVALID_HANDLE        2  /* Not a live instance: destroyed, stale or made up. */
#define FK_ERR_INVALID_UTF8          3  /* Text that is not valid UTF-8. */
#define FK_ERR_MALFORMED_JSON        4  /* Text that is not JSON, or is empty. */
#define FK_ERR_UNKNOWN_FEATURE       5  /* No feature of that name in this library. */
#define FK_ERR_UNKNOWN_INPUT         6  /* The input names a case the feature does not have. */
#define FK_ERR_INVALID_INPUT         7  /* A known input with a missing, unknown or mistyped field,
                                           or JSON that is not an input at all. */
#define FK_ERR_INVALID_STATE         8  /* A given state that does not fit the feature's State. */
#define FK_ERR_INVALID_ARGUMENT      9  /* Any other argument out of its range. */
#define FK_ERR_UNKNOWN_SUBSCRIPTION 10  /* No such subscription on this instance. */
#define FK_ERR_INTERNAL             11  /* The library failed on its own (for example, a state
                                           holding a number JSON cannot express). For tests,
                                           FUSIONKIT_FAULT=state-internal in the environment
                                           (read once) makes fk_state() fail with it. */
#define FK_ERR_UNKNOWN_REQUEST      12  /* No open host request with that id: never made,
                                           already answered, or cancelled. */
#define FK_ERR_INVALID_RESPONSE     13  /* A response that does not fit what the request asked
                                           for; the request stays open. */
#define FK_ERR_LIMIT_EXCEEDED       14  /* The call would go past one of the limits of
                                           fk_limit(); the message names it. */
#define FK_ERR_UNSETTLED            15  /* An effect of an instance on a manual clock waits on
                                           something other than that clock and the host's
                                           answers, so it cannot settle; the message names
                                           the feature and the effects. For tests,
                                           FUSIONKIT_FAULT=stray-effect adds the feature
                                           "fault.stray" whose input "stray" does so. */
#define FK_ERR_BUSY                 16  /* The instance has work under way that the call cannot
                                           wait for or start again (a host request open, an
                                           effect the feature does not restart); the message
                                           names it. Try again later. */
#define FK_ERR_PLUGIN_TRAPPED       17  /* A sandboxed plugin (a WebAssembly module run by the
                                           sandbox host, libFusionSandbox) stopped on a trap
                                           during this call: an index out of range, a
                                           fatalError. Nothing of the call is applied; the
                                           instance is failed from then on (fk_state()
                                           still gives its last good state). The message
                                           names the trap. */
#define FK_ERR_PLUGIN_LIMIT         18  /* A sandboxed plugin's call ran past its time budget
                                           or asked for memory past its cap; the message
                                           says which and the limit. The instance is failed
                                           as for FK_ERR_PLUGIN_TRAPPED. */
#define FK_ERR_INSTANCE_FAILED      19  /* The instance failed earlier (FK_ERR_PLUGIN_TRAPPED
                                           or FK_ERR_PLUGIN_LIMIT) and takes no more inputs;
                                           fk_state() gives its last good state, and
                                           fk_destroy() ends it. The message says how it
                                           failed. */

/* ---------------------------------------------------------------------------
** Types
*/

/* An instance of a feature. An opaque, non-zero number, never reused within a
** process; 0 is never a valid instance. A handle that is not (or no longer) live
** gives FK_ERR_INVALID_HANDLE from every function that takes one. */
typedef uint64_t fk_instance;

/* A buffer the caller owns, for reading state without an allocation
** (fk_state_into(), fk_send_and_read()). The caller sets data and capacity, once,
** and reuses the struct; each call sets length and version.
**
** data      where the JSON is written, followed by a NUL. May be NULL when capacity
**           is 0: a way to ask for the length alone.
** capacity  the size of data in bytes.
** length    set to the JSON's length in bytes, without the NUL, in every case, also
**           when it did not fit: as with snprintf, the JSON is written only when
**           length < capacity.
** version   set to the version of the state written. */
typedef struct fk_buffer {
    char *data;
    size_t capacity;
    size_t length;
    uint64_t version;
} fk_buffer;

/* Told that an instance's state changed.
**
** user_data  the pointer given to fk_subscribe(), passed back untouched.
** instance   the instance that changed.
** version    its version after the change; call fk_state() to read the state
**            (it may have moved on further by then).
**
** When it runs: after each change, in increasing version order, one call at a time
** per instance, on a thread that is inside a library call for that instance: the
** thread that sent the input, the thread answering a host request (fk_respond(),
** fk_fail_request()), or a library thread running one of the instance's effects
** (asynchronous work such as a timer). Never while the library holds a
** lock: the callback may call any fk_ function, including fk_send() on the same
** instance and fk_unsubscribe() of itself; changes it causes are reported after
** it returns. Keep it short: the thread it runs on is busy until it returns. */
typedef void (*fk_change_fn)(void *user_data, fk_instance instance, uint64_t version);

/* Told about work a feature asks the host to do (see "Host requests" below).
**
** user_data   the pointer given to fk_set_request_handler(), passed back untouched.
** instance    the instance that asks.
** event_json  borrowed, NUL-terminated, valid only during the call: one of
**               {"event":"request","id":7,"kind":"fetchPet","payload":{...}}
**               {"event":"cancel","id":7}
**             A request is answered later with fk_respond() or fk_fail_request(),
**             from any thread, once. After a cancel the id is closed: do not answer it.
** event_len   its length in bytes, without the NUL.
**
** When it runs: on a thread inside a library call for that instance (the one that
** sent the input, an effect's thread, or the thread calling fk_destroy() for the
** cancel events of requests still open then); never while the library holds a lock.
** It may call any fk_ function, including fk_respond() for the request it is told
** about. */
typedef void (*fk_request_fn)(void *user_data, fk_instance instance, const char *event_json, size_t event_len);

/* ---------------------------------------------------------------------------
** The library
*/

/* The ABI version the library speaks (FK_ABI_VERSION of the header it was built
** with). Call it first; if it differs from the FK_ABI_VERSION you compiled with,
** call nothing else.
** Thread safety: any thread. Never fails. */
uint32_t fk_abi_version(void);

/* The library's own version, e.g. "0.1.0".
** Returns: borrowed, NUL-terminated, valid while the library is loaded.
** Thread safety: any thread. Never fails. */
const char *fk_library_version(void);

/* The name of a status code, e.g. "FK_ERR_UNKNOWN_INPUT"; "FK_ERR_UNKNOWN_STATUS"
** for a number that is not a status code.
** Returns: borrowed, NUL-terminated, valid while the library is loaded.
** Thread safety: any thread. Never fails. */
const char *fk_status_name(fk_status status);

/* What went wrong in the most recent failed call on this thread, in words, e.g.
** 'unknown input "jump" for feature "counter"; valid inputs: increase, decrease,
** reset, show, alertDismissed'. "" when the most recent call succeeded. Only the
** functions that return an fk_status set or clear it; those that return none
** (fk_abi_version(), fk_library_version(), fk_status_name(), fk_free(), fk_limit()
** and this one) leave it, so fk_status_name() and this may be arguments of one
** printf() in either order, and a result freed first does not lose the message.
** Returns: borrowed, NUL-terminated, valid until the next fk_ call on this thread;
**          copy it to keep it.
** Thread safety: any thread; each thread has its own message. Never fails. */
const char *fk_last_error_message(void);

/* Describes the library: its name and version, the ABI version, the optional
** functions it exports ("optionalFunctions", see CONVENTIONS), and for each
** feature its name, summary, the "settings" it reads (name, type, summary), input
** cases with their fields and types, the
** JSON Schema of its inputs and of its state, and "stateVersion": the version of
** its state's shape (1 and up; a feature raises it when a saved state would no
** longer mean the same). Save it beside a state you keep: see "stateVersion" in
** fk_create_with_options().
**
** The first call describes every feature the library has not described yet, which
** costs milliseconds; a host that only needs the list reads fk_manifest_summary(),
** and one feature's entry comes from fk_feature_manifest().
**
** out_json  receives the JSON text: owned, NUL-terminated, free with fk_free().
** out_len   receives its length in bytes, without the NUL. May be NULL.
**
** Errors: FK_ERR_NULL_ARGUMENT if out_json is NULL.
** Thread safety: any thread. */
fk_status fk_manifest(char **out_json, size_t *out_len);

/* The manifest without the features' descriptions: the document fk_manifest()
** returns, except that each entry of "features" has only its "name", "summary" and
** "stateVersion". What a host reads when it loads a library; it then asks
** fk_feature_manifest() for the features it uses, when it uses them.
**
** Why it exists: describing a feature runs its inputs' and state's decoding code
** once, and the Swift runtime answers the first use of each type there by searching
** every protocol conformance the process has loaded. fk_manifest() describes every
** feature (milliseconds for the example library, the first time); this describes
** none, and fk_feature_manifest() and fk_create() describe only the feature named.
** A description is made once per process and kept.
**
** Optional (see CONVENTIONS). out_json, out_len, errors and thread safety: as
** fk_manifest(). */
fk_status fk_manifest_summary(char **out_json, size_t *out_len);

/* One feature's entry of the manifest: the object fk_manifest() lists for it under
** "features" (name, summary, stateVersion, settings, inputs, inputSchema, stateSchema),
** describing that feature only.
**
** feature, feature_len  the feature's name, as in the manifest ("counter").
** out_json  receives the JSON text: owned, NUL-terminated, free with fk_free().
** out_len   receives its length in bytes, without the NUL. May be NULL.
**
** Optional (see CONVENTIONS).
** Errors: FK_ERR_NULL_ARGUMENT (feature or out_json NULL), FK_ERR_INVALID_UTF8,
**         FK_ERR_UNKNOWN_FEATURE (the message lists the features).
** Thread safety: any thread. */
fk_status fk_feature_manifest(const char *feature, size_t feature_len, char **out_json, size_t *out_len);

/* Releases memory the library handed to the caller as owned (from fk_manifest(),
** fk_state()). NULL does nothing. Passing anything else, or the same pointer twice,
** is undefined behaviour, as with free().
** Thread safety: any thread. */
void fk_free(void *memory);

/* ---------------------------------------------------------------------------
** Instances
*/

/* Creates an instance of a feature.
**
** feature, feature_len  the feature's name, as in the manifest ("counter").
** state_json, state_len the state to start from, as JSON in the shape fk_state()
**                       of this library returns; NULL (with any length) for the
**                       feature's initial state. A field the state does not have
**                       is refused (FK_ERR_INVALID_STATE names it), never skipped.
**                       For a state saved by another version of the library, use
**                       fk_create_with_options() with "stateVersion".
** out_instance          receives the new instance on success; untouched on failure.
**
** The instance lives until fk_destroy(). Its version starts at 0.
** Errors: FK_ERR_NULL_ARGUMENT (feature or out_instance NULL),
**         FK_ERR_INVALID_UTF8, FK_ERR_UNKNOWN_FEATURE (the message lists the features),
**         FK_ERR_INVALID_UTF8 / FK_ERR_MALFORMED_JSON / FK_ERR_INVALID_STATE for the state.
** Thread safety: any thread. */
fk_status fk_create(const char *feature, size_t feature_len,
                    const char *state_json, size_t state_len,
                    fk_instance *out_instance);

/* Creates an instance with options: like fk_create(), with more to say.
**
** options_json, options_len  a JSON object; every key is optional; NULL means {}.
**   "state":    the state to start from, as for fk_create().
**   "stateVersion": the "stateVersion" (from the manifest) of the library that
**               saved "state"; default: this library's. A state from an older
**               version is migrated by the feature, or refused with
**               FK_ERR_INVALID_STATE naming both versions when the feature has no
**               migration from it; one from a newer version is refused. Only
**               with "state".
**   "seed":     an unsigned 64-bit integer seeding the instance's random source, so
**               that what the feature draws repeats (default: unpredictable); from
**               2^63 on written as a string of digits ("18446744073709551615"),
**               since a JSON number that large is read as a double and loses digits
**               (such a number is refused: FK_ERR_INVALID_ARGUMENT).
**   "clock":    "system" (default) or "manual": time stands still until
**               fk_advance_clock(), for tests and scripted runs.
**   "requests": "builtin" (default) or "host": who answers the work the feature
**               asks the host to do. With "builtin" the library answers itself (the
**               examples use sample data); with "host" the requests go to the
**               handler set with fk_set_request_handler(), or wait for
**               fk_poll_request(). Setting a handler also selects "host".
**   "settings": an object of feature-specific settings, those the feature's
**               manifest entry lists under "settings" (for example
**               {"liveScan": false} for "wifi"); a key it does not list, or a value
**               of another type, is FK_ERR_INVALID_ARGUMENT.
**   "history":  how many versions to keep for time travel (fk_history(),
**               fk_goto()), the current one included: 0 (default) keeps none,
**               at most 100000. Each kept version holds a copy of the state (parts
**               it shares with its neighbours are stored once).
**   A whole number ("stateVersion", "seed", "history") may be written in any way
**   JSON writes one (3, 3.0 and 3e0 are one number); a fraction is refused.
**   "checkpoint": what fk_checkpoint() wrote: the new instance goes on from there
**               (its state, version, clock time and random sequence), then starts
**               again the effects its feature restarts, as fk_restart_effects().
**               Needs "clock": "manual"; not with "state", "stateVersion" or "seed".
**   "user":     the signed-in user the host vouches for, {"subject": "…",
**               "claims": {…}}: a non-empty subject (who they are, e.g. a token's
**               "sub") and an object of whatever else the host passes on. Features
**               read it to show who is signed in; `fusion serve --auth jwt` sets it
**               from the user's verified token and never takes it from a page.
**
** Errors: as fk_create(), and FK_ERR_INVALID_ARGUMENT for an unknown key or a value
**         of the wrong kind (the message names it and lists the keys).
** Thread safety: any thread. */
fk_status fk_create_with_options(const char *feature, size_t feature_len,
                                 const char *options_json, size_t options_len,
                                 fk_instance *out_instance);

/* Destroys an instance: cancels its running effects and its open host requests
** (the request handler is told, before this returns), drops its subscriptions and
** frees it. When it returns, no callback of the instance is running (unless it is
** called from inside one of them) and none will be called again; the handle is
** invalid from then on. Destroying 0 does nothing and returns FK_OK.
**
** Errors: FK_ERR_INVALID_HANDLE (already destroyed, or never created).
** Thread safety: any thread; calls on the instance racing with its destruction
** either complete or fail with FK_ERR_INVALID_HANDLE. */
fk_status fk_destroy(fk_instance instance);

/* Sends an input to an instance and applies it before returning: the state read
** after this call reflects it. Changes made later by the effects it started (a
** timer, a request) arrive through subscriptions.
**
** input_json, input_len  the input as JSON: "increase", {"increase":{}} or
**                        {"networkTapped":{"id":"home"}}.
**
** Errors (each leaves state and version unchanged):
**   FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (input_json NULL),
**   FK_ERR_INVALID_UTF8, FK_ERR_MALFORMED_JSON (also for empty text),
**   FK_ERR_UNKNOWN_INPUT (the message names the case and lists the valid ones),
**   FK_ERR_INVALID_INPUT (the message names the field and the expected type).
** And one that comes after the input was applied (the state and version show it):
**   FK_ERR_UNSETTLED, on a manual clock, when an effect the input set going waits on
**   something else (as for fk_advance_clock()). Do not send the input again.
** Thread safety: any thread; inputs to one instance are applied one at a time. */
fk_status fk_send(fk_instance instance, const char *input_json, size_t input_len);

/* Reads an instance's state as JSON, with the version it belongs to.
**
** out_json     receives the JSON object: owned, NUL-terminated, free with fk_free().
** out_len      receives its length in bytes, without the NUL. May be NULL.
** out_version  receives the version of that state. May be NULL.
**
** Reading an unchanged state again is cheap: it is encoded once per version.
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (out_json NULL),
**         FK_ERR_INTERNAL (the state cannot be written as JSON).
** Thread safety: any thread. */
fk_status fk_state(fk_instance instance, char **out_json, size_t *out_len, uint64_t *out_version);

/* Reads an instance's state as JSON into a buffer the caller owns (see fk_buffer):
** like fk_state(), without an allocation and without a call to fk_free() afterwards.
** For callers that read often, and for bindings where every call across the
** boundary counts.
**
** buffer   required; its data and capacity say where to write, and the call sets
**          its length and version.
**
** The JSON is written only when it fits with its NUL (length < capacity); otherwise
** data holds an empty string (when capacity > 0) and the call still returns FK_OK:
** read again with a capacity above length (the state may have moved on in between;
** the version says).
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (buffer NULL, or data NULL with
**         a capacity above 0), FK_ERR_INTERNAL.
** Thread safety: any thread; a buffer must not be used by two calls at once. */
fk_status fk_state_into(fk_instance instance, fk_buffer *buffer);

/* Sends an input and reads the state right after it, in one call: fk_send(), then
** fk_state_into(). The state is the one this input produced, even when other threads
** send inputs to the instance at the same time; with fk_send() then fk_state() their
** inputs may land in between.
**
** input_json, input_len  as for fk_send().
** buffer                 as for fk_state_into(). When it is too small the input is
**                        still applied and FK_OK returned; length says how much room
**                        the state needs.
**
** Errors: those of fk_send(), and FK_ERR_NULL_ARGUMENT for the buffer as for
** fk_state_into(); each leaves state and version unchanged. FK_ERR_INTERNAL (the
** state cannot be written as JSON) and FK_ERR_UNSETTLED (as for fk_send()) come
** after the input was applied; the buffer's length and version are then left as
** they were: read the state with fk_state_into().
** Thread safety: any thread; inputs to one instance are applied one at a time. */
fk_status fk_send_and_read(fk_instance instance, const char *input_json, size_t input_len, fk_buffer *buffer);

/* fk_send_and_read()'s arguments but the input, kept by the caller from call to call
** (see fk_send_and_read_call()). The caller sets instance, input_len and the buffer's
** data and capacity; each call sets the buffer's length and version. */
typedef struct fk_call {
    fk_buffer buffer;
    fk_instance instance;
    size_t input_len;
} fk_call;

/* fk_send_and_read(call->instance, input_json, call->input_len, &call->buffer): the
** same call, with the arguments that do not change from one input to the next kept in
** a struct. For bindings where each argument costs on every call (Python's ctypes
** converts each one, and allocates for most): two arguments instead of four. The
** input's length is call->input_len, or FK_NUL_TERMINATED.
**
** Errors: those of fk_send_and_read(), and FK_ERR_NULL_ARGUMENT when call is NULL.
** Thread safety: any thread; a call struct must not be used by two calls at once. */
fk_status fk_send_and_read_call(fk_call *call, const char *input_json);

/* Reads what changed in an instance's state since a version the caller holds, as a
** JSON Patch (RFC 6902), so that a front end with a large state can follow small
** changes without reading the whole state each time.
**
** since_version  the version of the state the caller has.
** out_json       receives, owned, NUL-terminated, free with fk_free(), either
**                  {"from":V,"to":N,"patch":[{"op":"replace","path":"/networks/3/connectivity","value":0.5},...]}
**                applying the operations in order to the state at V gives the state
**                at N (an empty list when nothing changed); or
**                  {"from":null,"to":N,"state":{...}}
**                the whole state, when V is not one of the recent versions the
**                library keeps, or when the whole state costs less than the patch:
**                a state under 1 KiB of JSON (writing it costs less than comparing
**                two), or a patch that would not be shorter than the state. Read
**                "from" to tell the two forms apart; never assume a patch. The
**                library starts keeping versions at the first call, so the first
**                call for an instance gives the whole state unless since_version is
**                the current version; after that the last 16 versions are kept.
** out_len        receives its length, without the NUL. May be NULL.
** out_version    receives N. May be NULL.
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (out_json NULL), FK_ERR_INTERNAL.
** Thread safety: any thread. */
fk_status fk_state_patch(fk_instance instance, uint64_t since_version, char **out_json, size_t *out_len, uint64_t *out_version);

/* Reads an instance's state version: 0 when created, plus one for each change.
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (out_version NULL).
** Thread safety: any thread. */
fk_status fk_version(fk_instance instance, uint64_t *out_version);

/* Calls `callback` after every change of the instance's state (see fk_change_fn
** for when and on which thread), until fk_unsubscribe() or fk_destroy().
**
** callback          required.
** user_data         passed to every call of callback; may be NULL. The library
**                   does not own it; keep it valid until unsubscribed.
** out_subscription  receives the subscription's id (non-zero).
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (callback or out_subscription NULL).
** Thread safety: any thread. */
fk_status fk_subscribe(fk_instance instance, fk_change_fn callback, void *user_data,
                       uint64_t *out_subscription);

/* Ends a subscription. When this returns, the callback is not running (unless
** fk_unsubscribe() is called from inside it) and will not be called again, so
** its user_data may be freed.
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_UNKNOWN_SUBSCRIPTION (not a subscription
**         of this instance, or already ended).
** Thread safety: any thread. */
fk_status fk_unsubscribe(fk_instance instance, uint64_t subscription);

/* ---------------------------------------------------------------------------
** Time
*/

/* Moves an instance's manual clock forward (see "clock" in fk_create_with_options()).
** First it lets the effects already running reach their wait, so that a timer
** started by the last input counts from before the move; then it moves the clock;
** then it returns once the effects that woke have settled: each has finished, or
** waits again on the clock or on a host request. Changes they make are reported to
** subscribers before this returns. Advancing by 0 only settles the effects.
**
** An instance on a manual clock runs its effects itself, on the thread of the call
** that set them going: fk_send, fk_send_and_read(_call), fk_respond,
** fk_fail_request, fk_goto and fk_advance_clock return once every effect is parked
** again. Settling is exact, whatever the machine's load: no effect is still running
** when the call returns, and no real-time limit cuts it short. (With calls from several
** threads at once, a call leaves an effect step another thread is running to that
** thread's call, and reports no FK_ERR_UNSETTLED while another call is under way.)
**
** A manual clock stops at its end, 2^63 - 1 nanoseconds (about 292 years) after it
** started: a move past it stops there, and an effect asleep until a later time never
** wakes (fk_next_wake() does not count it). Every time the clock can show is then a
** signed 64-bit count, which a checkpoint and a journal write exactly.
**
** nanoseconds  how far to move; 1000000000 is one second.
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_INVALID_ARGUMENT (the instance runs on the
**         system clock), FK_ERR_UNSETTLED (an effect waits on something else, such as
**         the system clock or another thread; the clock has moved, and the message
**         names the feature and the effects).
** Thread safety: any thread. */
fk_status fk_advance_clock(fk_instance instance, uint64_t nanoseconds);

/* Counts what an instance still has under way: effects that have not finished
** (running, or waiting on the clock or on a host request), and host requests not
** answered yet. Test runners check both are 0 at the end of a scenario ("nothing
** pending"); on the manual clock, call fk_advance_clock() by 0 first so that effects
** an input just started have reached their wait.
**
** out_effects   receives the number of unfinished effects. May be NULL.
** out_requests  receives the number of open host requests. May be NULL.
**
** Errors: FK_ERR_INVALID_HANDLE.
** Thread safety: any thread; the counts may change as soon as it returns. */
fk_status fk_pending(fk_instance instance, uint64_t *out_effects, uint64_t *out_requests);

/* Tells how far an instance's manual clock must move before an effect asleep on it
** wakes: the earliest sleeper's deadline minus the clock's time. A host that moves a
** manual clock in real time (a crash journal, a recording) moves it only when that
** much time has passed, or before anything else it applies, instead of at every tick:
** moves that wake nothing change nothing (effects sleep on the clock; they do not
** read it). Effects an input just started have reached their sleep when that call
** returned (see fk_advance_clock()).
**
** out_nanoseconds  receives the nanoseconds until the first sleeper is due (0 when
**                  one is due already), or UINT64_MAX when no effect sleeps on the
**                  clock, or every one sleeps past its end (see fk_advance_clock()).
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (out_nanoseconds NULL),
**         FK_ERR_INVALID_ARGUMENT (the instance runs on the system clock).
** Thread safety: any thread; an input or a woken effect may start another sleep as
**         soon as it returns. */
fk_status fk_next_wake(fk_instance instance, uint64_t *out_nanoseconds);

/* ---------------------------------------------------------------------------
** Time travel
**
** An instance created with the option "history": N keeps its last N versions, each
** with what made it, and can return to any of them. Going back is a new version
** (versions only ever grow, so patches and subscribers keep working): its state is
** the old one's, the versions after the old one are forgotten, and the next input
** branches from there. Snapshots, not replay: going back costs a copy of the state
** whatever the distance (measured in docs/scenarios.md).
*/

/* Lists the versions an instance keeps, oldest first, with what made each:
**
**   {"limit":1000,"version":8,"entries":[
**     {"version":0,"cause":"start"},
**     {"version":1,"cause":"input","input":"increase"},
**     {"version":2,"cause":"effect"},     an action an effect fed back (a timer)
**     {"version":3,"cause":"response"},   the host's answer to a request
**     {"version":8,"cause":"goto","restored":2}]}   fk_goto() back to version 2
**
** "version" is the current version (the last entry's). An input is listed as the
** JSON it was sent as.
**
** out_json  receives the JSON: owned, NUL-terminated, free with fk_free().
** out_len   receives its length, without the NUL. May be NULL.
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (out_json NULL),
**         FK_ERR_INVALID_ARGUMENT (the instance keeps no history).
** Thread safety: any thread. */
fk_status fk_history(fk_instance instance, char **out_json, size_t *out_len);

/* Returns an instance to the state of a version it keeps (see fk_history()). The
** state becomes that version's, as a new version (reported to subscribers like any
** change); every effect still running is cancelled and every open host request too
** (the request handler is told, before this returns), since they belong to the
** future left behind; `version` itself and the versions after it are forgotten
** too (its state lives on as the new version, whose fk_history() entry names it in
** "restored"), so going there again is by the new version's number. The clock does
** not go back, and the random source goes on from where it is. Going to the current
** version changes nothing.
**
** version      a version listed by fk_history().
** out_version  receives the version reached (the current one). May be NULL.
**
** Errors (each leaves the instance unchanged): FK_ERR_INVALID_HANDLE,
**         FK_ERR_INVALID_ARGUMENT (the instance keeps no history, or that version is
**         not kept; the message says which versions are).
** Thread safety: any thread; it is applied between inputs, like an input. */
fk_status fk_goto(fk_instance instance, uint64_t version, uint64_t *out_version);

/* ---------------------------------------------------------------------------
** Checkpoints
**
** A crash journal replays a session's inputs; a checkpoint lets it drop those before a
** point. It writes down an instance on a manual clock so that another instance can go
** on from it exactly: fk_checkpoint() reads it, fk_create_with_options() with
** "checkpoint" makes the new instance. Running effects cannot be written down, so a
** checkpoint is taken only when every effect running is one the feature can start
** again from the state alone (in Swift, Feature.restartableEffects) and no host request
** is open; the journal then calls fk_restart_effects() on the live instance, which
** stops those effects and starts them again, as the instance made from the checkpoint
** does when it is created. Both go on the same way from there.
*/

/* Writes down an instance on a manual clock, as a JSON object:
**
**   {"state":{…},"stateVersion":1,"version":8,"clock":2000000000,
**    "seed":"1234","random":"5678"}
**
** "clock" is the clock's time in nanoseconds (at most 2^63 - 1, the clock's end: a
** larger one is refused); "version" is at most 2^53 - 1 (what every JSON reader reads
** exactly; an instance never counts that far, so only a checkpoint made up by hand is
** refused for it); "seed" and "random" (the random source's place in its sequence)
** are 64-bit unsigned integers written as strings of digits (the checkpoint's own
** form: the option "seed" takes a seed below 2^63 as a number and refuses it as a
** string, so that each seed has one spelling). Pass the object as the "checkpoint"
** option of fk_create_with_options(). It
** changes nothing: take it, journal it, then call fk_restart_effects().
**
** out_json  receives the JSON (owned: release it with fk_free()).
** out_len   receives its length in bytes, without the NUL. May be NULL.
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (out_json NULL),
**         FK_ERR_INVALID_ARGUMENT (the instance runs on the system clock),
**         FK_ERR_BUSY (a host request is open, or an effect runs that the feature does
**         not restart; the message names them: take it later).
** Thread safety: any thread; a consistent picture when no other call on the instance
**         is under way, which is how a journal calls it. */
fk_status fk_checkpoint(fk_instance instance, char **out_json, size_t *out_len);

/* Stops every effect of an instance on a manual clock and starts again those its
** feature restarts for the current state (Swift: Feature.restartEffects(for:)), then
** returns once they have settled, as fk_advance_clock() does. What a checkpoint does to
** the instance it was taken of; an instance created from the checkpoint does it too.
** The state changes only if the restarting actions change it (a new version then).
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_INVALID_ARGUMENT (the system clock),
**         FK_ERR_BUSY (as for fk_checkpoint(); nothing is stopped),
**         FK_ERR_UNSETTLED (as for fk_advance_clock()).
** Thread safety: any thread. */
fk_status fk_restart_effects(fk_instance instance);

/* ---------------------------------------------------------------------------
** Host requests
**
** Some work only the front end can do: a platform API, a dialog, the network in
** some apps. A feature asks for it with a request, a JSON object with an id, a
** kind and a payload; the host answers by id, later, with a result or an error, in
** any order. Requests still open when the instance is destroyed, or when the
** feature stops waiting (a screen dismissed), are cancelled and the host is told.
** The manifest does not list request kinds; each feature documents its own.
*/

/* Sets the function told about requests and cancellations of an instance, and
** selects "host" requests for it. Requests already waiting for fk_poll_request() are
** handed to the new handler before this returns. NULL removes the handler: requests
** then wait for fk_poll_request().
**
** user_data  passed to every call of handler; the library does not own it.
**
** Errors: FK_ERR_INVALID_HANDLE.
** Thread safety: any thread. After it returns, the previous handler is not called
** again (unless this is called from inside it). */
fk_status fk_set_request_handler(fk_instance instance, fk_request_fn handler, void *user_data);

/* Takes the next request or cancellation event of an instance that has no
** handler, in the order they happened.
**
** out_json  receives the event JSON (as for fk_request_fn): owned, NUL-terminated,
**           free with fk_free(); NULL when there is none.
** out_len   receives its length, without the NUL; 0 when there is none. May be NULL.
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT (out_json NULL).
** Thread safety: any thread. */
fk_status fk_poll_request(fk_instance instance, char **out_json, size_t *out_len);

/* Answers an open request with its result. What the feature does with the answer
** (usually an action that changes the state) happens before this returns, so the
** state read after it reflects the answer, and answers given one after another are
** applied in that order.
**
** request_id               the id from the request event.
** result_json, result_len  the result, as JSON in the shape the feature documents
**                          for that kind.
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT, FK_ERR_INVALID_UTF8,
**         FK_ERR_MALFORMED_JSON, FK_ERR_UNKNOWN_REQUEST, FK_ERR_INVALID_RESPONSE
**         (the request stays open and can be answered again).
** Thread safety: any thread. */
fk_status fk_respond(fk_instance instance, uint64_t request_id, const char *result_json, size_t result_len);

/* Answers an open request with an error: the work could not be done. As with
** fk_respond(), the feature's reaction is applied before this returns.
**
** message, message_len  why, in words the feature may show (UTF-8).
**
** Errors: FK_ERR_INVALID_HANDLE, FK_ERR_NULL_ARGUMENT, FK_ERR_INVALID_UTF8,
**         FK_ERR_UNKNOWN_REQUEST.
** Thread safety: any thread. */
fk_status fk_fail_request(fk_instance instance, uint64_t request_id, const char *message, size_t message_len);

/* ---------------------------------------------------------------------------
** Limits
**
** A library lives in someone else's process, so it bounds what one caller can make
** it hold: a call that would go past a limit fails with FK_ERR_LIMIT_EXCEEDED (the
** depth: FK_ERR_MALFORMED_JSON, as always) and a message naming the limit, and
** changes nothing. Limits hold for the whole library (each loaded library has its
** own) and every instance of it.
*/

/* The bytes of one text argument: an input, a state, options, a response, a
** feature name, a failure message. A NUL-terminated text is not read further than
** one byte past the limit. Default 16 MiB (16777216); at most 1 GiB. */
#define FK_LIMIT_LENGTH         0
/* How deeply arrays and objects may nest in JSON the library reads. Going past it
** gives FK_ERR_MALFORMED_JSON ("nesting deeper than N levels"). Default 512, which is
** also the most: the depth the library's recursion is known to fit in a thread's
** stack; a setting can only lower it. */
#define FK_LIMIT_JSON_DEPTH     1
/* Subscriptions of one instance at a time (fk_subscribe()). Default 1024; at most
** 1048576. */
#define FK_LIMIT_SUBSCRIBERS    2
/* Host requests of one instance open (made and not answered or cancelled) at a time.
** A feature asking for one more does not get it: its request fails at once, as if the
** host had called fk_fail_request() with a message naming this limit, and the host
** hears nothing of it. Default 1024; at most 1048576. */
#define FK_LIMIT_HOST_REQUESTS  3
/* Live instances of the library (created and not destroyed). Default 100000; at most
** 16777216. */
#define FK_LIMIT_INSTANCES      4

/* Reads or sets a limit, as sqlite3_limit() does.
**
** limit      one of the FK_LIMIT_ constants.
** new_value  the new value, or a negative number to only read it. Values above the
**            limit's maximum are lowered to it. A lower value than what is in use
**            now (say, 10 subscribers where 20 exist) refuses only what comes next.
**
** Returns: the limit's value before the call; -1 for a number that is not a limit.
** Thread safety: any thread; a new value holds for calls that start after it returns.
** Never fails. */
int64_t fk_limit(int32_t limit, int64_t new_value);

#ifdef __cplusplus
}
#endif

#endif /* FUSIONKIT_H */
