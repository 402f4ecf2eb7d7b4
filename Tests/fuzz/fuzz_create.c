/*
 * fuzz_create.c: creating an instance from a state and from options.
 *
 * Byte 0 picks the feature (low 3 bits), whether the rest is a state for fk_create or
 * options for fk_create_with_options (bit 3), and NUL-terminated text (bit 4).
 * Checked: a refused creation hands out no instance and says why; an accepted one has
 * version 0 and a state that, given back to fk_create, makes an instance with that very
 * state (what a host saving and restoring a session relies on); destroy succeeds.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const char *feature = fuzz_features[(data[0] & 7) % FUZZ_FEATURE_COUNT];
    int options = (data[0] >> 3) & 1;
    int nul_terminated = (data[0] >> 4) & 1;
    char *text = fuzz_text(data + 1, size - 1);
    size_t length = nul_terminated ? FK_NUL_TERMINATED : size - 1;
    fk_instance instance = 0;
    fk_status status = options ? fk_create_with_options(feature, FK_NUL_TERMINATED, text, length, &instance)
                               : fk_create(feature, FK_NUL_TERMINATED, text, length, &instance);
    free(text);
    if (status != FK_OK) {
        FUZZ_REQUIRE(instance == 0, "a refused creation wrote an instance");
        FUZZ_REQUIRE(status != FK_ERR_INTERNAL && status != FK_ERR_NULL_ARGUMENT && status != FK_ERR_LIMIT_EXCEEDED,
                     "creating %s gave %s", feature, fk_status_name(status));
        FUZZ_REQUIRE(fk_last_error_message()[0] != 0, "a refused creation left no message");
        return 0;
    }
    struct fuzz_snapshot first = fuzz_snapshot(instance);
    FUZZ_REQUIRE(first.version == 0, "a new instance is at version %llu", (unsigned long long)first.version);
    fk_instance again = 0;
    status = fk_create(feature, FK_NUL_TERMINATED, first.json, first.length, &again);
    FUZZ_REQUIRE(status == FK_OK, "the state %s gave cannot make a %s again", first.json, feature);
    struct fuzz_snapshot second = fuzz_snapshot(again);
    FUZZ_REQUIRE(second.length == first.length && memcmp(second.json, first.json, first.length) == 0,
                 "state %s came back as %s", first.json, second.json);
    fk_free(first.json);
    fk_free(second.json);
    FUZZ_REQUIRE(fk_destroy(again) == FK_OK, "destroy failed");
    FUZZ_REQUIRE(fk_destroy(instance) == FK_OK, "destroy failed");
    return 0;
}
