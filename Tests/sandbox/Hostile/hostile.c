/* A plugin module written against the module contract (docs/wasm.md) by hand, in C, that
 * breaks it on demand: what Tests/sandbox/test_sandbox_hostile.py sends decides what it
 * does. Built with the toolchain's clang for wasm32, no libc:
 *
 *   clang --target=wasm32-unknown-unknown -nostdlib -O1 -c hostile.c -o hostile.o
 *   wasm-ld --no-entry --export-memory=memory hostile.o -o hostile.wasm
 *
 * -DWRONG_SEND_SIGNATURE builds a module whose fk_send has another type than the
 * contract's. Every input it accepts counts one (so does one no feature has: a host must
 * not send it inputs of its own); its state is {"value": N}. */
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
#define EXPORT(name) __attribute__((export_name(#name)))
#define IMPORT(module, name) __attribute__((import_module(#module), import_name(#name)))

IMPORT(wasi_snapshot_preview1, random_get) i32 random_get(u32 buffer, u32 length);

extern unsigned char __heap_base;
static u32 heap;

/* A bump allocator: fk_free gives nothing back (the tests' modules live briefly). */
static char *allocate(u32 size) {
    if (!heap) heap = (u32)&__heap_base;
    heap = (heap + 15) & ~15u;
    u32 at = heap;
    heap += size + 1;
    while (heap > (u32)__builtin_wasm_memory_size(0) * 65536u) {
        if (__builtin_wasm_memory_grow(0, 16) == (unsigned long)-1) __builtin_trap();
    }
    return (char *)at;
}

static u32 length(const char *text) {
    u32 n = 0;
    while (text[n]) n++;
    return n;
}

static char *copy(const char *text) {
    u32 n = length(text);
    char *room = allocate(n + 1);
    for (u32 i = 0; i <= n; i++) room[i] = text[i];
    return room;
}

static int equals(const char *text, u32 size, const char *word) {
    u32 n = length(word);
    if (n != size) return 0;
    for (u32 i = 0; i < n; i++) {
        if (text[i] != word[i]) return 0;
    }
    return 1;
}

/* The state of each instance (handles 1 to 63), and what its texts say. */
static i64 values[64];
static u64 versions[64];
static const char *states[64]; /* a text to give for fk_state instead of {"value": N} */
static const char *patches[64]; /* the same for fk_state_patch; "" gives NULL */
static u32 next_handle = 1;
static i32 last_status;
static const char *last_message = "";

EXPORT(fk_alloc) u32 fk_alloc(u32 size) { return (u32)allocate(size); }
EXPORT(fk_free) void fk_free(u32 pointer) { (void)pointer; }

EXPORT(fk_manifest) u32 fk_manifest(void) {
    return (u32)copy(
        "{\"abiVersion\":1,\"library\":{\"name\":\"Hostile\",\"version\":\"1.0.0\"},\"optionalFunctions\":[],"
        "\"features\":[{\"name\":\"hostile\",\"summary\":\"Breaks the module contract on demand.\",\"stateVersion\":1,"
        "\"inputs\":[{\"name\":\"ok\",\"fields\":[]}],\"inputSchema\":{},"
        "\"stateSchema\":{\"title\":\"HostileState\",\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"integer\"}},"
        "\"required\":[\"value\"],\"additionalProperties\":false}}]}");
}

EXPORT(fk_create) i32 fk_create(u32 name, u32 name_length, u32 options, u32 options_length) {
    (void)options;
    (void)options_length;
    if (!equals((const char *)name, name_length, "hostile")) {
        last_status = 3; /* FK_ERR_UNKNOWN_FEATURE */
        last_message = "unknown feature";
        return 0;
    }
    if (next_handle >= 64) return 0;
    values[next_handle] = 0;
    return (i32)next_handle++;
}

EXPORT(fk_destroy) void fk_destroy(i32 handle) { (void)handle; }

static char *value_text(i64 value) {
    char *room = allocate(40);
    char digits[24];
    u32 n = 0, k = 0;
    u64 magnitude = value < 0 ? -(u64)value : (u64)value;
    const char *head = "{\"value\":";
    while (head[k]) { room[k] = head[k]; k++; }
    do { digits[n++] = (char)('0' + magnitude % 10); magnitude /= 10; } while (magnitude);
    if (value < 0) room[k++] = '-';
    while (n) room[k++] = digits[--n];
    room[k++] = '}';
    room[k] = 0;
    return room;
}

#ifdef WRONG_SEND_SIGNATURE
EXPORT(fk_send) i64 fk_send(i32 handle, u32 input) {
    (void)handle;
    (void)input;
    return 0;
}
#else
EXPORT(fk_send) i32 fk_send(i32 handle, u32 input, u32 size) {
    const char *text = (const char *)input;
    if (handle <= 0 || handle >= 64) return 2;
    if (equals(text, size, "\"refusedButSaysOK\"")) {
        last_status = 0; /* FK_OK, for a call it refused */
        last_message = "refused";
        return 6;
    }
    if (equals(text, size, "\"claimsTrapped\"")) {
        last_status = 17;
        last_message = "I trapped (I did not)";
        return 17;
    }
    if (equals(text, size, "\"notJSON\"")) states[handle] = "{\"value\":1,,,";
    if (equals(text, size, "\"notUTF8\"")) states[handle] = "{\"value\":\"\xff\xfe\"}";
    if (equals(text, size, "\"forge\"")) states[handle] = "{\"value\":666},\"instance\":\"b\",\"to\":999999,\"x\":0";
    if (equals(text, size, "\"patchSpeaksForTheBridge\""))
        patches[handle] = "{\"from\":null,\"to\":1,\"state\":{\"value\":1},\"instance\":\"b\",\"type\":\"state\"}";
    if (equals(text, size, "\"noPatch\"")) patches[handle] = "";
    if (equals(text, size, "\"randomBig\"")) {
        u32 big = 32u << 20;
        char *room = allocate(big);
        if (random_get((u32)room, big) != 0) __builtin_trap();
    }
    values[handle] += 1;
    versions[handle] += 1;
    return 0;
}
#endif

EXPORT(fk_state) u32 fk_state(i32 handle) {
    if (handle <= 0 || handle >= 64) return 0;
    return (u32)(states[handle] ? copy(states[handle]) : value_text(values[handle]));
}

EXPORT(fk_version) u64 fk_version(i32 handle) { return handle > 0 && handle < 64 ? versions[handle] : 0; }

EXPORT(fk_state_patch) u32 fk_state_patch(i32 handle, u64 since) {
    (void)since;
    if (handle <= 0 || handle >= 64) return 0;
    if (patches[handle]) return patches[handle][0] ? (u32)copy(patches[handle]) : 0;
    char *state = states[handle] ? copy(states[handle]) : value_text(values[handle]);
    char *room = allocate(length(state) + 64);
    const char *head = "{\"from\":null,\"to\":";
    u32 k = 0;
    while (head[k]) { room[k] = head[k]; k++; }
    u64 version = versions[handle];
    char digits[24];
    u32 n = 0;
    do { digits[n++] = (char)('0' + version % 10); version /= 10; } while (version);
    while (n) room[k++] = digits[--n];
    const char *middle = ",\"state\":";
    for (u32 i = 0; middle[i]; i++) room[k++] = middle[i];
    for (u32 i = 0; state[i]; i++) room[k++] = state[i];
    room[k++] = '}';
    room[k] = 0;
    return (u32)room;
}

EXPORT(fk_advance_clock) i32 fk_advance_clock(i32 handle, u64 nanoseconds) { (void)handle; (void)nanoseconds; return 0; }
EXPORT(fk_elapse) i32 fk_elapse(i32 handle, u64 nanoseconds) { (void)handle; (void)nanoseconds; return 0; }
EXPORT(fk_next_wake) i64 fk_next_wake(i32 handle) { (void)handle; return -1; }
EXPORT(fk_pending_effects) i32 fk_pending_effects(i32 handle) { (void)handle; return 0; }
EXPORT(fk_pending_requests) i32 fk_pending_requests(i32 handle) { (void)handle; return 0; }
EXPORT(fk_poll_request) u32 fk_poll_request(i32 handle) { (void)handle; return 0; }
EXPORT(fk_respond) i32 fk_respond(i32 handle, u64 id, u32 json, u32 size) { (void)handle; (void)id; (void)json; (void)size; return 10; }
EXPORT(fk_fail_request) i32 fk_fail_request(i32 handle, u64 id, u32 text, u32 size) { (void)handle; (void)id; (void)text; (void)size; return 10; }
EXPORT(fk_last_error_status) i32 fk_last_error_status(void) { return last_status; }
EXPORT(fk_last_error_message) u32 fk_last_error_message(void) { return (u32)copy(last_message); }
EXPORT(fk_goto) u64 fk_goto(i32 handle, u64 version) { (void)handle; (void)version; return 0; }
EXPORT(fk_history) u32 fk_history(i32 handle) { (void)handle; return 0; }
EXPORT(fk_status_name) u32 fk_status_name(i32 status) { (void)status; return (u32)copy("FK_ERR_HOSTILE"); }
