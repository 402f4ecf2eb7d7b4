/*
 * fuzz_send.c: inputs to every example feature.
 *
 * Byte 0 picks the feature (low 3 bits) and how text is passed (bit 3: NUL-terminated);
 * the rest is inputs separated by 0 bytes, each sent with fk_send or fk_send_and_read in
 * turn. The instance runs on a manual clock with host requests, so nothing changes it
 * between calls but the calls; effects an input starts are let settle before the next.
 * Checked: a refused input changes nothing and says why; an accepted one moves the
 * version by at most one; the state read back is consistent; destroy succeeds.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const char *feature = fuzz_features[(data[0] & 7) % FUZZ_FEATURE_COUNT];
    int nul_terminated = (data[0] >> 3) & 1;
    data++;
    size--;
    fk_instance instance;
    fk_status status = fk_create_with_options(feature, FK_NUL_TERMINATED,
                                              "{\"clock\":\"manual\",\"requests\":\"host\",\"seed\":7}",
                                              FK_NUL_TERMINATED, &instance);
    FUZZ_REQUIRE(status == FK_OK, "creating %s failed", feature);
    const uint8_t *chunk;
    size_t length;
    char small[64];
    fk_buffer buffer = {small, sizeof small, 0, 0};
    for (unsigned turn = 0; fuzz_next_chunk(&data, &size, &chunk, &length); turn++) {
        struct fuzz_snapshot before = fuzz_snapshot(instance);
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
    char *patch = NULL;
    FUZZ_REQUIRE(fk_state_patch(instance, 0, &patch, NULL, NULL) == FK_OK && patch && patch[0] == '{',
                 "fk_state_patch failed");
    fk_free(patch);
    FUZZ_REQUIRE(fk_destroy(instance) == FK_OK, "destroy failed");
    return 0;
}
