/*
 * fuzz_common.h: what the C fuzz targets share. Each target defines
 * LLVMFuzzerTestOneInput and drives libFusionExamples.so through include/fusionkit.h
 * only, as a hostile or careless host would. Beyond "no crash", each checks the
 * header's promises and calls abort() when one breaks, so that libFuzzer reports it:
 * a failed call changes nothing (state and version as before) and says why.
 *
 * Built two ways: with clang -fsanitize=fuzzer (scripts/test-reliability), and with
 * replay_main.c as a plain program that runs the committed corpus (Tests/abi, so that
 * every input that once crashed stays a regression test of the normal build).
 */
#ifndef FUSION_FUZZ_COMMON_H
#define FUSION_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusionkit.h"

/* The example library's features, in the manifest's order; a test checks the list. */
static const char *const fuzz_features[] = {"counter", "answer", "home", "wifi", "profile"};
#define FUZZ_FEATURE_COUNT (sizeof fuzz_features / sizeof fuzz_features[0])

#define FUZZ_REQUIRE(condition, ...)                                                  \
    do {                                                                              \
        if (!(condition)) {                                                           \
            fprintf(stderr, "broken promise: " __VA_ARGS__);                          \
            fprintf(stderr, " (%s:%d; last message: %s)\n", __FILE__, __LINE__,      \
                    fk_last_error_message());                                         \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/* A copy of an instance's state and version, to compare after a refused call. */
struct fuzz_snapshot {
    char *json;
    size_t length;
    uint64_t version;
};

static inline struct fuzz_snapshot fuzz_snapshot(fk_instance instance) {
    struct fuzz_snapshot s = {NULL, 0, 0};
    fk_status status = fk_state(instance, &s.json, &s.length, &s.version);
    FUZZ_REQUIRE(status == FK_OK, "fk_state of a live instance failed with %d", status);
    FUZZ_REQUIRE(s.json != NULL && strlen(s.json) == s.length, "fk_state's length does not match its text");
    return s;
}

/* After a call that failed with `status`: a message, and nothing changed. */
static inline void fuzz_unchanged(fk_instance instance, const struct fuzz_snapshot *before, fk_status status,
                                  const char *call) {
    FUZZ_REQUIRE(fk_last_error_message()[0] != 0, "%s failed with %s but left no message", call,
                 fk_status_name(status));
    struct fuzz_snapshot after = fuzz_snapshot(instance);
    FUZZ_REQUIRE(after.version == before->version, "%s failed with %s but the version moved from %llu to %llu", call,
                 fk_status_name(status), (unsigned long long)before->version, (unsigned long long)after.version);
    FUZZ_REQUIRE(after.length == before->length && memcmp(after.json, before->json, after.length) == 0,
                 "%s failed with %s but the state changed", call, fk_status_name(status));
    fk_free(after.json);
}

/* The next chunk of `data` up to a 0 byte (JSON text never holds a raw NUL, so the
 * separator costs the fuzzer nothing it could use). */
static inline int fuzz_next_chunk(const uint8_t **data, size_t *size, const uint8_t **chunk, size_t *length) {
    if (*size == 0) return 0;
    const uint8_t *end = memchr(*data, 0, *size);
    *chunk = *data;
    *length = end ? (size_t)(end - *data) : *size;
    size_t used = end ? *length + 1 : *length;
    *data += used;
    *size -= used;
    return 1;
}

/* A NUL-terminated copy, for the calls given FK_NUL_TERMINATED. */
static inline char *fuzz_text(const uint8_t *chunk, size_t length) {
    char *text = malloc(length + 1);
    if (!text) abort();
    memcpy(text, chunk, length);
    text[length] = 0;
    return text;
}

#endif
