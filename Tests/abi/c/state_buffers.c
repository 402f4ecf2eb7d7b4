/*
 * state_buffers.c: reading state into a buffer the caller owns (fk_state_into,
 * fk_send_and_read), and the instance handle table under churn.
 *
 * The buffer rules are snprintf's: the JSON and its NUL are written only when they
 * fit (length < capacity); otherwise the buffer holds an empty string; the length is
 * reported in every case. Buffers of an exact size are allocated with malloc so that
 * valgrind sees any write past their end. fk_send_and_read's promise is that the state
 * it returns is the one its input produced, also with other threads sending: two
 * threads increase one counter and every state they get back must have value ==
 * version. The handle table is churned: thousands of instances created, half
 * destroyed in a shuffled order, thousands more created; destroyed handles must stay
 * dead, live ones must keep their own state, and no handle may come back.
 *
 * Usage: state_buffers [instances]   (default 5000 per round of creation)
 * Closes with "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fusionkit.h"

static int passed, failed;
static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok   %s\n", what); }
    else { failed++; printf("FAIL %s (last message: %s)\n", what, fk_last_error_message()); }
}

/* The state through fk_state, the reference the buffer functions must agree with.
 * The caller frees it with fk_free. */
static char *state_of(fk_instance instance, size_t *length, uint64_t *version) {
    char *json = NULL;
    if (fk_state(instance, &json, length, version) != FK_OK) {
        fprintf(stderr, "fk_state failed: %s\n", fk_last_error_message());
        exit(2);
    }
    return json;
}

static uint64_t version_of(fk_instance instance) {
    uint64_t version = UINT64_MAX;
    if (fk_version(instance, &version) != FK_OK) return UINT64_MAX;
    return version;
}

/* The "value" of a counter state, e.g. 3 for {"value":3,"isReset":false,"alert":null};
 * INT64_MIN when there is none. */
static int64_t value_in(const char *json) {
    const char *at = strstr(json, "\"value\":");
    if (!at) return INT64_MIN;
    char *end;
    long long value = strtoll(at + 8, &end, 10);
    if (end == at + 8 || (*end != ',' && *end != '}')) return INT64_MIN;
    return value;
}

static int all_bytes(const char *buffer, size_t from, size_t to, char byte) {
    for (size_t i = from; i < to; i++) {
        if (buffer[i] != byte) return 0;
    }
    return 1;
}

static fk_instance new_counter(void) {
    fk_instance instance = 0;
    if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &instance) != FK_OK) {
        fprintf(stderr, "fk_create failed: %s\n", fk_last_error_message());
        exit(2);
    }
    return instance;
}

static void send_n(fk_instance instance, const char *input, int times) {
    for (int i = 0; i < times; i++) {
        if (fk_send(instance, input, FK_NUL_TERMINATED) != FK_OK) {
            fprintf(stderr, "fk_send %s failed: %s\n", input, fk_last_error_message());
            exit(2);
        }
    }
}

/* A buffer over data, with length and version set to values no call would give, so
 * that a call that does not set them is seen. */
static fk_buffer buffer_over(char *data, size_t capacity) {
    fk_buffer b = {data, capacity, 999999, 999999};
    return b;
}

/* The call must set length and version and leave data and capacity as they were. */
static int kept(const fk_buffer *b, const char *data, size_t capacity) {
    return b->data == data && b->capacity == capacity;
}

/* ---- fk_state_into ---- */

static void state_into(void) {
    const char *fresh = "{\"value\":0,\"isReset\":false,\"alert\":null}";
    const char *three = "{\"value\":3,\"isReset\":false,\"alert\":null}";
    fk_instance counter = new_counter();

    char big[256];
    memset(big, 'x', sizeof big);
    fk_buffer b = buffer_over(big, sizeof big);
    fk_status status = fk_state_into(counter, &b);
    check(status == FK_OK && strcmp(big, fresh) == 0 && b.length == strlen(fresh) && b.version == 0,
          "state into: a new counter's state, its length and version 0");

    send_n(counter, "\"increase\"", 3);
    size_t reference_length;
    uint64_t reference_version;
    char *reference = state_of(counter, &reference_length, &reference_version);
    check(strcmp(reference, three) == 0 && reference_version == 3, "fk_state after three increases (reference)");

    /* The same struct, reused as the header intends. */
    memset(big, 'x', sizeof big);
    b.length = 999999; b.version = 999999;
    status = fk_state_into(counter, &b);
    check(status == FK_OK, "state into a large buffer: FK_OK");
    check(b.length == reference_length && b.length == strlen(three), "state into a large buffer: the JSON's length, without the NUL");
    check(memcmp(big, three, strlen(three)) == 0 && big[strlen(three)] == '\0', "state into a large buffer: the JSON and a NUL");
    check(all_bytes(big, strlen(three) + 1, sizeof big, 'x'), "state into a large buffer: nothing written after the NUL");
    check(b.version == 3, "state into a large buffer: the version of that state");
    check(kept(&b, big, sizeof big), "state into: data and capacity left as the caller set them");

    fk_buffer length_only = buffer_over(NULL, 0);
    status = fk_state_into(counter, &length_only);
    check(status == FK_OK && length_only.length == reference_length && length_only.version == 3 && kept(&length_only, NULL, 0),
          "state into: NULL data, capacity 0 gives the length and version");

    /* Capacity 0 with real data: nothing may be written, not even the NUL. */
    memset(big, 'x', sizeof big);
    fk_buffer none = buffer_over(big, 0);
    status = fk_state_into(counter, &none);
    check(status == FK_OK && none.length == reference_length && none.version == 3 && all_bytes(big, 0, sizeof big, 'x'),
          "state into: capacity 0 with data writes nothing and gives the length");

    /* Exactly the JSON's length: no room for the NUL, so an empty string. */
    char *exact = malloc(reference_length);
    memset(exact, 'x', reference_length);
    fk_buffer e = buffer_over(exact, reference_length);
    status = fk_state_into(counter, &e);
    check(status == FK_OK, "state into, capacity == length: FK_OK");
    check(exact[0] == '\0', "state into, capacity == length: an empty string");
    check(e.length == reference_length, "state into, capacity == length: the length it needs, without the NUL");
    check(e.version == 3, "state into, capacity == length: the version");
    free(exact);

    /* One short of that: also an empty string. */
    char *short_one = malloc(reference_length - 1);
    memset(short_one, 'x', reference_length - 1);
    fk_buffer s = buffer_over(short_one, reference_length - 1);
    status = fk_state_into(counter, &s);
    check(status == FK_OK && short_one[0] == '\0' && s.length == reference_length, "state into, capacity == length - 1: empty string and the length");
    free(short_one);

    /* A single byte: room for the NUL alone. */
    char *one = malloc(1);
    *one = 'x';
    fk_buffer o = buffer_over(one, 1);
    status = fk_state_into(counter, &o);
    check(status == FK_OK && *one == '\0' && o.length == reference_length, "state into, capacity 1: empty string and the length");
    free(one);

    /* length + 1: just fits. */
    char *fits = malloc(reference_length + 1);
    memset(fits, 'x', reference_length + 1);
    fk_buffer f = buffer_over(fits, reference_length + 1);
    status = fk_state_into(counter, &f);
    check(status == FK_OK && f.length == reference_length && memcmp(fits, three, reference_length) == 0 && fits[reference_length] == '\0' &&
          f.version == 3, "state into, capacity == length + 1: the JSON and its NUL");
    free(fits);

    /* A capacity beyond any real size (SIZE_MAX) with data that is large enough. */
    memset(big, 'x', sizeof big);
    fk_buffer huge = buffer_over(big, SIZE_MAX);
    status = fk_state_into(counter, &huge);
    check(status == FK_OK && huge.length == reference_length && strcmp(big, three) == 0, "state into, capacity SIZE_MAX: the JSON");

    /* The protocol the header describes: ask for the length, then read with more room. */
    fk_send(counter, "\"show\"", FK_NUL_TERMINATED);
    const char *shown = "{\"value\":3,\"isReset\":false,\"alert\":\"The value is 3.\"}";
    fk_buffer ask = buffer_over(NULL, 0);
    fk_state_into(counter, &ask);
    char *sized = malloc(ask.length + 1);
    fk_buffer again = buffer_over(sized, ask.length + 1);
    status = fk_state_into(counter, &again);
    check(status == FK_OK && ask.length == strlen(shown) && again.length == ask.length && strcmp(sized, shown) == 0 && again.version == 4,
          "state into: ask for the length, then read with length + 1 bytes");
    free(sized);

    check(version_of(counter) == 4, "state into: reading leaves the version alone");

    fk_free(reference);
    fk_destroy(counter);
}

/* ---- fk_send_and_read ---- */

static void send_and_read(void) {
    const char *one = "{\"value\":1,\"isReset\":false,\"alert\":null}";
    const char *zero = "{\"value\":0,\"isReset\":false,\"alert\":null}";
    fk_instance counter = new_counter();
    char big[256];

    memset(big, 'x', sizeof big);
    fk_buffer b = buffer_over(big, sizeof big);
    fk_status status = fk_send_and_read(counter, "\"increase\"", FK_NUL_TERMINATED, &b);
    check(status == FK_OK && strcmp(big, one) == 0 && b.length == strlen(one) && b.version == 1,
          "send and read: the state after the input, its length, version 1");
    check(all_bytes(big, strlen(one) + 1, sizeof big, 'x'), "send and read: nothing written after the NUL");
    check(kept(&b, big, sizeof big), "send and read: data and capacity left as the caller set them");

    size_t reference_length;
    uint64_t reference_version;
    char *reference = state_of(counter, &reference_length, &reference_version);
    check(strcmp(reference, one) == 0 && reference_version == 1 && reference_length == b.length, "send and read: fk_state agrees");
    fk_free(reference);

    status = fk_send_and_read(counter, "{\"decrease\":{}}", FK_NUL_TERMINATED, &b);
    check(status == FK_OK && strcmp(big, zero) == 0 && b.length == strlen(zero) && b.version == 2,
          "send and read: {\"decrease\":{}} gives value 0, version 2");

    /* The input is input_len bytes, not up to a NUL. */
    status = fk_send_and_read(counter, "\"increase\"\"decrease\"", 10, &b);
    check(status == FK_OK && strcmp(big, one) == 0 && b.version == 3, "send and read: an input given by length, not NUL-terminated");

    status = fk_send_and_read(counter, "\"show\"", FK_NUL_TERMINATED, &b);
    const char *shown = "{\"value\":1,\"isReset\":false,\"alert\":\"The value is 1.\"}";
    check(status == FK_OK && strcmp(big, shown) == 0 && b.length == strlen(shown) && b.version == 4, "send and read: show sets the alert");

    status = fk_send_and_read(counter, "\"reset\"", FK_NUL_TERMINATED, &b);
    const char *reset = "{\"value\":0,\"isReset\":true,\"alert\":\"The value is 1.\"}";
    check(status == FK_OK && strcmp(big, reset) == 0 && b.version == 5 && version_of(counter) == 5, "send and read: reset");

    /* Too small: the input is still applied, FK_OK, an empty string and the length the
     * new state needs. */
    char *small = malloc(8);
    memset(small, 'x', 8);
    fk_buffer sb = buffer_over(small, 8);
    status = fk_send_and_read(counter, "\"alertDismissed\"", FK_NUL_TERMINATED, &sb);
    const char *dismissed = "{\"value\":0,\"isReset\":true,\"alert\":null}";
    check(status == FK_OK, "send and read, buffer too small: FK_OK");
    check(small[0] == '\0', "send and read, buffer too small: an empty string");
    check(sb.length == strlen(dismissed), "send and read, buffer too small: the length of the new state");
    check(sb.version == 6 && version_of(counter) == 6, "send and read, buffer too small: the input was applied (version 6)");
    free(small);
    reference = state_of(counter, &reference_length, &reference_version);
    check(strcmp(reference, dismissed) == 0 && reference_version == 6, "send and read, buffer too small: fk_state shows the new state");
    fk_free(reference);

    /* Exactly the length: no room for the NUL. */
    size_t next_length = strlen(one);
    char *exact = malloc(next_length);
    memset(exact, 'x', next_length);
    fk_buffer eb = buffer_over(exact, next_length);
    status = fk_send_and_read(counter, "\"increase\"", FK_NUL_TERMINATED, &eb);
    check(status == FK_OK && exact[0] == '\0' && eb.length == next_length && eb.version == 7 && version_of(counter) == 7,
          "send and read, capacity == length: empty string, the length, the input applied");
    free(exact);

    /* length + 1 just fits. */
    char *fits = malloc(next_length + 1);
    fk_buffer fb = buffer_over(fits, next_length + 1);
    status = fk_send_and_read(counter, "\"decrease\"", FK_NUL_TERMINATED, &fb);
    check(status == FK_OK && strcmp(fits, zero) == 0 && fb.length == next_length && fb.version == 8,
          "send and read, capacity == length + 1: the state and its NUL");
    free(fits);

    /* Length only: NULL data, capacity 0. */
    fk_buffer lb = buffer_over(NULL, 0);
    status = fk_send_and_read(counter, "\"increase\"", FK_NUL_TERMINATED, &lb);
    check(status == FK_OK && lb.length == strlen(one) && lb.version == 9 && version_of(counter) == 9,
          "send and read, NULL data and capacity 0: the input applied, the length given");

    /* A refused input: nothing applied, nothing written. */
    memset(big, 'x', sizeof big);
    b = buffer_over(big, sizeof big);
    status = fk_send_and_read(counter, "\"jump\"", FK_NUL_TERMINATED, &b);
    check(status == FK_ERR_UNKNOWN_INPUT && version_of(counter) == 9 && big[0] == 'x', "send and read: a refused input changes nothing, writes nothing");

    fk_destroy(counter);
}

/* ---- fk_send_and_read from two threads ---- */

#define PER_THREAD 10000

static fk_instance shared_counter;
static pthread_barrier_t start_together; /* the two senders and the reader */

struct sender {
    const char *input;
    uint64_t versions[PER_THREAD];
    int failures;   /* a status other than FK_OK, or a length that does not match */
    int mismatches; /* a state whose value is not its version */
    int not_increasing;
};

static void *send_and_read_many(void *arg) {
    struct sender *t = arg;
    char data[128];
    fk_buffer b = {data, sizeof data, 0, 0};
    uint64_t previous = 0;
    pthread_barrier_wait(&start_together);
    for (int i = 0; i < PER_THREAD; i++) {
        if (fk_send_and_read(shared_counter, t->input, FK_NUL_TERMINATED, &b) != FK_OK || b.length != strlen(data)) {
            t->failures++;
            continue;
        }
        if (value_in(data) != (int64_t)b.version) t->mismatches++;
        if (b.version <= previous) t->not_increasing++;
        previous = b.version;
        t->versions[i] = b.version;
    }
    return NULL;
}

/* A third thread only reads: every state it gets must be the one of the version it
 * gets with it. */
static atomic_int readers_stop;
static int read_failures, read_mismatches, reads, reads_between; /* reads_between: at a version strictly between 0 and the last */

static void *read_many(void *arg) {
    (void)arg;
    char data[128];
    fk_buffer b = {data, sizeof data, 0, 0};
    pthread_barrier_wait(&start_together);
    while (!atomic_load(&readers_stop)) {
        if (fk_state_into(shared_counter, &b) != FK_OK || b.length != strlen(data)) {
            read_failures++;
            continue;
        }
        if (value_in(data) != (int64_t)b.version) read_mismatches++;
        reads++;
        if (b.version > 0 && b.version < 2 * PER_THREAD) reads_between++;
        /* A pause, so that under valgrind (one thread at a time) the senders get on. */
        nanosleep(&(struct timespec){0, 20000}, NULL);
    }
    return NULL;
}

static void threads(void) {
    shared_counter = new_counter();
    static struct sender a, b;
    a.input = "\"increase\"";
    b.input = "\"increase\"";
    pthread_t ta, tb, tr;
    pthread_barrier_init(&start_together, NULL, 3);
    pthread_create(&tr, NULL, read_many, NULL);
    pthread_create(&ta, NULL, send_and_read_many, &a);
    pthread_create(&tb, NULL, send_and_read_many, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    atomic_store(&readers_stop, 1);
    pthread_join(tr, NULL);
    pthread_barrier_destroy(&start_together);

    check(a.failures == 0 && b.failures == 0, "two threads: every send and read returns FK_OK with a matching length");
    check(a.mismatches == 0 && b.mismatches == 0, "two threads: every returned state's value equals its returned version");
    if (a.mismatches || b.mismatches) printf("     mismatches: %d and %d of %d each\n", a.mismatches, b.mismatches, PER_THREAD);
    check(a.not_increasing == 0 && b.not_increasing == 0, "two threads: the versions each thread sees strictly increase");

    /* Each input made one version: together the two threads saw 1...20000, each once. */
    unsigned char *seen = calloc(2 * PER_THREAD + 1, 1);
    int each_once = 1;
    struct sender *both[2] = {&a, &b};
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < PER_THREAD; i++) {
            uint64_t v = both[t]->versions[i];
            if (v == 0 || v > 2 * PER_THREAD || seen[v]) { each_once = 0; continue; }
            seen[v] = 1;
        }
    }
    free(seen);
    check(each_once, "two threads: between them they saw every version from 1 to 20000 exactly once");
    check(read_failures == 0 && read_mismatches == 0, "a reading thread meanwhile: every state from fk_state_into has value == version");
    printf("     (the reading thread read %d times, %d of them while the senders were under way)\n", reads, reads_between);

    char *json = state_of(shared_counter, NULL, NULL);
    check(version_of(shared_counter) == 2 * PER_THREAD && value_in(json) == 2 * PER_THREAD, "two threads: final version and value 20000");
    fk_free(json);
    fk_destroy(shared_counter);
}

/* ---- the handle table under churn ---- */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int compare_handles(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Instance i of the churn starts at value i and is sent i % 7 increases, so each
 * one's state is its own: value i + i % 7, version i % 7. */
static int holds_its_state(fk_instance instance, size_t i) {
    char data[128];
    fk_buffer b = buffer_over(data, sizeof data);
    if (fk_state_into(instance, &b) != FK_OK) return 0;
    if (b.version != i % 7 || version_of(instance) != i % 7) return 0;
    return value_in(data) == (int64_t)(i + i % 7);
}

static int is_dead(fk_instance instance) {
    uint64_t version = 12345;
    char data[8];
    fk_buffer b = {data, sizeof data, 0, 0};
    return fk_version(instance, &version) == FK_ERR_INVALID_HANDLE &&
           fk_state_into(instance, &b) == FK_ERR_INVALID_HANDLE &&
           fk_send(instance, "\"increase\"", FK_NUL_TERMINATED) == FK_ERR_INVALID_HANDLE;
}

static void create_round(fk_instance *handles, size_t from, size_t to, int *created_ok) {
    for (size_t i = from; i < to; i++) {
        char state[96];
        snprintf(state, sizeof state, "{\"value\":%zu,\"isReset\":false,\"alert\":null}", i);
        handles[i] = 0;
        if (fk_create("counter", FK_NUL_TERMINATED, state, FK_NUL_TERMINATED, &handles[i]) != FK_OK || handles[i] == 0) {
            *created_ok = 0;
            continue;
        }
        send_n(handles[i], "\"increase\"", (int)(i % 7));
    }
}

static void churn(size_t n) {
    fk_instance *handles = calloc(2 * n, sizeof *handles);
    unsigned char *destroyed = calloc(2 * n, 1);
    size_t *order = calloc(n, sizeof *order);
    char what[160];

    int created_ok = 1;
    create_round(handles, 0, n, &created_ok);
    snprintf(what, sizeof what, "churn: created %zu counters, each with its own state", n);
    check(created_ok, what);

    /* Destroy a pseudo-random half, in a shuffled order, checking every live one
     * along the way (at a few points) and at the end. */
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(next_random() % (i + 1));
        size_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    size_t half = n / 2;
    int destroy_ok = 1, midway_ok = 1;
    for (size_t k = 0; k < half; k++) {
        size_t i = order[k];
        if (fk_destroy(handles[i]) != FK_OK) destroy_ok = 0;
        destroyed[i] = 1;
        if ((k + 1) % (half / 4 + 1) == 0) {
            for (size_t m = 0; m < n; m++) {
                if (destroyed[m] ? !is_dead(handles[m]) : !holds_its_state(handles[m], m)) midway_ok = 0;
            }
        }
    }
    check(destroy_ok, "churn: destroying half of them in a shuffled order");
    check(midway_ok, "churn: while destroying, the destroyed are dead and the live keep their state");

    int dead_ok = 1, live_ok = 1;
    for (size_t i = 0; i < n; i++) {
        if (destroyed[i]) { if (!is_dead(handles[i])) dead_ok = 0; }
        else if (!holds_its_state(handles[i], i)) live_ok = 0;
    }
    check(dead_ok, "churn: every destroyed handle gives FK_ERR_INVALID_HANDLE (fk_version, fk_state_into, fk_send)");
    check(live_ok, "churn: every live handle still works and has its own state and version");

    /* The live ones take more inputs, each its own number, and keep them apart. */
    int more_ok = 1;
    for (size_t i = 0; i < n; i++) {
        if (destroyed[i]) continue;
        int extra = (int)(i % 5) + 1;
        char data[128];
        fk_buffer b = buffer_over(data, sizeof data);
        for (int e = 0; e < extra; e++) {
            if (fk_send_and_read(handles[i], "\"decrease\"", FK_NUL_TERMINATED, &b) != FK_OK) more_ok = 0;
        }
        if (b.version != i % 7 + (uint64_t)extra || value_in(data) != (int64_t)(i + i % 7) - extra) more_ok = 0;
        /* Undo them, so that holds_its_state applies again (value back, version on). */
        send_n(handles[i], "\"increase\"", extra);
    }
    check(more_ok, "churn: live instances take further inputs, each its own count");

    created_ok = 1;
    create_round(handles, n, 2 * n, &created_ok);
    snprintf(what, sizeof what, "churn: created %zu more", n);
    check(created_ok, what);

    fk_instance *sorted = malloc(2 * n * sizeof *sorted);
    memcpy(sorted, handles, 2 * n * sizeof *sorted);
    qsort(sorted, 2 * n, sizeof *sorted, compare_handles);
    int distinct = sorted[0] != 0;
    for (size_t i = 1; i < 2 * n; i++) {
        if (sorted[i] == sorted[i - 1]) distinct = 0;
    }
    free(sorted);
    check(distinct, "churn: no new handle equals any earlier one, live or destroyed; none is 0");

    dead_ok = 1; live_ok = 1;
    for (size_t i = 0; i < 2 * n; i++) {
        if (destroyed[i]) { if (!is_dead(handles[i])) dead_ok = 0; continue; }
        if (i < n) {
            /* Old survivors: i % 7 increases, then extra decreases and extra increases. */
            uint64_t extra = i % 5 + 1;
            char data[128];
            fk_buffer b = buffer_over(data, sizeof data);
            if (fk_state_into(handles[i], &b) != FK_OK || b.version != i % 7 + 2 * extra || value_in(data) != (int64_t)(i + i % 7)) live_ok = 0;
        } else if (!holds_its_state(handles[i], i)) {
            live_ok = 0;
        }
    }
    check(dead_ok, "churn: the destroyed stay dead after more creations");
    check(live_ok, "churn: old survivors and new instances each hold their own state");

    int all_destroyed = 1;
    for (size_t i = 0; i < 2 * n; i++) {
        if (destroyed[i]) continue;
        if (fk_destroy(handles[i]) != FK_OK) all_destroyed = 0;
        destroyed[i] = 1;
    }
    check(all_destroyed, "churn: destroying all the rest");
    dead_ok = 1;
    for (size_t i = 0; i < 2 * n; i++) {
        if (!is_dead(handles[i]) || fk_destroy(handles[i]) != FK_ERR_INVALID_HANDLE) dead_ok = 0;
    }
    check(dead_ok, "churn: afterwards every handle is dead, and destroying it again fails");

    fk_instance after = new_counter();
    int fresh = 1;
    for (size_t i = 0; i < 2 * n; i++) {
        if (handles[i] == after) fresh = 0;
    }
    check(fresh && version_of(after) == 0, "churn: a counter created after it all has a new handle and starts at version 0");
    fk_destroy(after);

    free(handles);
    free(destroyed);
    free(order);
}

/* ---- fk_send_and_read_call: the same round trip, its fixed arguments in a struct ---- */

static void send_and_read_call(void) {
    const char *one = "{\"value\":1,\"isReset\":false,\"alert\":null}";
    fk_instance counter = new_counter();
    char data[128];
    fk_call call = { buffer_over(data, sizeof data), counter, FK_NUL_TERMINATED };

    fk_status status = fk_send_and_read_call(&call, "\"increase\"");
    check(status == FK_OK && strcmp(data, one) == 0 && call.buffer.length == strlen(one) && call.buffer.version == 1,
          "call: the state after the input, its length, version 1");
    check(kept(&call.buffer, data, sizeof data) && call.instance == counter && call.input_len == FK_NUL_TERMINATED,
          "call: the caller's fields left as set");

    /* input_len is used as fk_send_and_read uses it: the input is 10 bytes here. */
    call.input_len = 10;
    status = fk_send_and_read_call(&call, "\"increase\"\"decrease\"");
    check(status == FK_OK && call.buffer.version == 2 && strstr(data, "\"value\":2") != NULL, "call: an input given by length");
    call.input_len = FK_NUL_TERMINATED;

    /* Errors change nothing, and say why. */
    status = fk_send_and_read_call(NULL, "\"increase\"");
    check(status == FK_ERR_NULL_ARGUMENT && strstr(fk_last_error_message(), "call is NULL") != NULL, "call: NULL call refused");
    status = fk_send_and_read_call(&call, "\"jump\"");
    check(status == FK_ERR_UNKNOWN_INPUT && version_of(counter) == 2, "call: an unknown input changes nothing");
    status = fk_send_and_read_call(&call, NULL);
    check(status == FK_ERR_NULL_ARGUMENT && version_of(counter) == 2, "call: NULL input refused");

    /* Too small: applied, FK_OK, an empty string and the length needed. */
    char small[4];
    fk_call tight = { buffer_over(small, sizeof small), counter, FK_NUL_TERMINATED };
    status = fk_send_and_read_call(&tight, "\"increase\"");
    check(status == FK_OK && small[0] == 0 && tight.buffer.length == strlen(one) && tight.buffer.version == 3,
          "call: too small a buffer gets the length, the input is applied");

    fk_destroy(counter);
    status = fk_send_and_read_call(&call, "\"increase\"");
    check(status == FK_ERR_INVALID_HANDLE, "call: a destroyed instance is refused");
}

int main(int argc, char **argv) {
    if (fk_abi_version() != FK_ABI_VERSION) {
        fprintf(stderr, "ABI mismatch\n");
        return 2;
    }
    size_t n = 5000;
    if (argc > 1) n = (size_t)strtoul(argv[1], NULL, 10);
    if (n < 8) n = 8;

    state_into();
    send_and_read();
    send_and_read_call();
    threads();
    churn(n);

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
