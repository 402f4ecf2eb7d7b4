/*
 * fuzz_send.c: inputs to every example feature.
 *
 * Byte 0 picks the feature (low 3 bits) and how text is passed (bit 3: NUL-terminated);
 * the rest is inputs separated by 0 bytes, each sent with fk_send or fk_send_and_read in
 * turn. The instance runs on a manual clock with host requests, so nothing changes it
 * between calls but the calls; effects an input starts are let settle before the next.
 * Checked: a refused input changes nothing and says why; an accepted one moves the
 * version by at most one; the state read back is consistent; destroy succeeds.
 *
 * Time travel too: the instance keeps 8 versions ("history"), and a chunk starting with
 * byte 1 is fk_goto back by its second byte (mod 10) versions. Checked: a refused goto
 * (a version no longer kept) changes nothing; an accepted one makes one new version whose
 * state is, byte for byte, the state this harness read at the version gone back to;
 * fk_history always answers, naming the current version.
 */
#include "fuzz_common.h"

#define SEEN 16

/* The states read before each call, by version, to compare a goto's result with. */
struct seen {
    uint64_t version[SEEN];
    char *json[SEEN];
    size_t length[SEEN];
    int next;
};

static void remember(struct seen *seen, const struct fuzz_snapshot *s) {
    int slot = seen->next++ % SEEN;
    free(seen->json[slot]);
    seen->version[slot] = s->version;
    seen->json[slot] = fuzz_text((const uint8_t *)s->json, s->length);
    seen->length[slot] = s->length;
}

static const char *recalled(const struct seen *seen, uint64_t version, size_t *length) {
    for (int i = 0; i < SEEN; i++)
        if (seen->json[i] && seen->version[i] == version) {
            *length = seen->length[i];
            return seen->json[i];
        }
    return NULL;
}

static void go_back(fk_instance instance, const struct fuzz_snapshot *before, const struct seen *seen, uint8_t steps) {
    uint64_t target = before->version >= steps % 10 ? before->version - steps % 10 : 0;
    uint64_t reached = 0;
    fk_status status = fk_goto(instance, target, &reached);
    if (status != FK_OK) {
        FUZZ_REQUIRE(status == FK_ERR_INVALID_ARGUMENT, "fk_goto(%llu) gave %s", (unsigned long long)target,
                     fk_status_name(status));
        fuzz_unchanged(instance, before, status, "fk_goto");
        return;
    }
    struct fuzz_snapshot after = fuzz_snapshot(instance);
    uint64_t expected = target == before->version ? before->version : before->version + 1;
    FUZZ_REQUIRE(reached == expected && after.version == expected, "fk_goto(%llu) from v%llu reached v%llu",
                 (unsigned long long)target, (unsigned long long)before->version, (unsigned long long)reached);
    size_t length = 0;
    const char *then = recalled(seen, target, &length);
    FUZZ_REQUIRE(!then || (length == after.length && memcmp(then, after.json, length) == 0),
                 "fk_goto(%llu) gave %s, but the state at that version was %s", (unsigned long long)target, after.json,
                 then);
    fk_free(after.json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const char *feature = fuzz_features[(data[0] & 7) % FUZZ_FEATURE_COUNT];
    int nul_terminated = (data[0] >> 3) & 1;
    data++;
    size--;
    fk_instance instance;
    fk_status status = fk_create_with_options(feature, FK_NUL_TERMINATED,
                                              "{\"clock\":\"manual\",\"requests\":\"host\",\"seed\":7,\"history\":8}",
                                              FK_NUL_TERMINATED, &instance);
    FUZZ_REQUIRE(status == FK_OK, "creating %s failed", feature);
    const uint8_t *chunk;
    size_t length;
    char small[64];
    fk_buffer buffer = {small, sizeof small, 0, 0};
    struct seen seen = {{0}, {0}, {0}, 0};
    for (unsigned turn = 0; fuzz_next_chunk(&data, &size, &chunk, &length); turn++) {
        struct fuzz_snapshot before = fuzz_snapshot(instance);
        remember(&seen, &before);
        if (length >= 1 && chunk[0] == 1) {
            go_back(instance, &before, &seen, length >= 2 ? chunk[1] : 1);
            fk_free(before.json);
            fk_advance_clock(instance, 0);
            continue;
        }
        char *text = nul_terminated ? fuzz_text(chunk, length) : NULL;
        const char *input = text ? text : (const char *)chunk;
        size_t input_len = text ? FK_NUL_TERMINATED : length;
        if (length == 0 && !text) input = ""; /* never NULL: that is its own error */
        const char *call = turn % 2 ? "fk_send_and_read" : "fk_send";
        status = turn % 2 ? fk_send_and_read(instance, input, input_len, &buffer) : fk_send(instance, input, input_len);
        free(text);
        if (status != FK_OK) {
            FUZZ_REQUIRE(status != FK_ERR_INTERNAL && status != FK_ERR_INVALID_HANDLE && status != FK_ERR_NULL_ARGUMENT,
                         "%s of an input to %s gave %s", call, feature, fk_status_name(status));
            fuzz_unchanged(instance, &before, status, call);
        } else if (turn % 2) {
            FUZZ_REQUIRE(buffer.version == before.version || buffer.version == before.version + 1,
                         "one input moved the version from %llu to %llu", (unsigned long long)before.version,
                         (unsigned long long)buffer.version);
            FUZZ_REQUIRE(buffer.length >= buffer.capacity || (strlen(small) == buffer.length && small[0] == '{'),
                         "fk_send_and_read wrote a state that does not match its length");
        }
        fk_free(before.json);
        fk_advance_clock(instance, 0); /* let the effects it started reach their wait */
    }
    char *history = NULL;
    uint64_t now = 0;
    fk_version(instance, &now);
    FUZZ_REQUIRE(fk_history(instance, &history, NULL) == FK_OK && history, "fk_history failed");
    char current[48];
    snprintf(current, sizeof current, "\"version\":%llu", (unsigned long long)now);
    FUZZ_REQUIRE(strstr(history, current) != NULL, "fk_history %s does not name the current version %llu", history,
                 (unsigned long long)now);
    fk_free(history);
    for (int i = 0; i < SEEN; i++) free(seen.json[i]);
    char *patch = NULL;
    FUZZ_REQUIRE(fk_state_patch(instance, 0, &patch, NULL, NULL) == FK_OK && patch && patch[0] == '{',
                 "fk_state_patch failed");
    fk_free(patch);
    FUZZ_REQUIRE(fk_destroy(instance) == FK_OK, "destroy failed");
    return 0;
}
