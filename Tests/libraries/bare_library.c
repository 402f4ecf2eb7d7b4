/*
 * bare_library.c: a FusionKit library written in C with the required functions and
 * nothing newer than fk_create_with_options and fk_manifest_summary, for tests that need
 * a library other than the examples (Tests/conftest.py builds it). It has one feature,
 * "tally" (state {"count":N}, input "add"; creation options are accepted and not used),
 * no fk_advance_clock (so the bridge's `advanceClock` is BRIDGE_UNSUPPORTED) and no
 * fk_state_patch (so the bridge sends whole states).
 *
 *   -DBARE_VERSION='"1.1.0"'    the library's version (1.0.0 by default): two builds of
 *                               "the same" library, for the journal's version check
 *   -DBARE_BROKEN_MANIFEST      fk_manifest hands out text that is not JSON (the bridge's
 *                               `manifest` message is then BRIDGE_HOST_FAILURE)
 *   -DBARE_POISON               the input "poison" traps (__builtin_trap): a poison input,
 *                               which kills the process applying it (docs/deploy.md)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusionkit.h"

#define SLOTS 64
#ifndef BARE_VERSION
#define BARE_VERSION "1.0.0"
#endif

typedef struct {
    int live;
    uint64_t count, version;
    fk_change_fn callback;
    void *user_data;
} tally;

static tally slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local const char *last_error = "";

static fk_status fail(fk_status status, const char *message) {
    last_error = message;
    return status;
}

static char *copy(const char *text, size_t *out_len) {
    size_t length = strlen(text);
    char *result = malloc(length + 1);
    if (result) memcpy(result, text, length + 1);
    if (out_len) *out_len = length;
    return result;
}

static size_t length_of(const char *text, size_t length) {
    return length == FK_NUL_TERMINATED ? strlen(text) : length;
}

static tally *lookup(fk_instance instance) {
    return instance >= 1 && instance <= SLOTS && slots[instance - 1].live ? &slots[instance - 1] : NULL;
}

uint32_t fk_abi_version(void) { return FK_ABI_VERSION; }
const char *fk_library_version(void) { return BARE_VERSION; }
const char *fk_last_error_message(void) { return last_error; }

const char *fk_status_name(fk_status status) {
    switch (status) {
    case FK_OK: return "FK_OK";
    case FK_ERR_UNKNOWN_FEATURE: return "FK_ERR_UNKNOWN_FEATURE";
    case FK_ERR_UNKNOWN_INPUT: return "FK_ERR_UNKNOWN_INPUT";
    case FK_ERR_INVALID_HANDLE: return "FK_ERR_INVALID_HANDLE";
    case FK_ERR_INVALID_ARGUMENT: return "FK_ERR_INVALID_ARGUMENT";
    default: return "FK_ERR_INTERNAL";
    }
}

fk_status fk_manifest_summary(char **out_json, size_t *out_len) {
    if (!out_json) return fail(FK_ERR_NULL_ARGUMENT, "out_json is NULL");
    *out_json = copy("{\"abiVersion\":1,\"library\":{\"name\":\"Bare\",\"version\":\"" BARE_VERSION "\"},"
                     "\"optionalFunctions\":[\"fk_create_with_options\",\"fk_manifest_summary\"],"
                     "\"features\":[{\"name\":\"tally\",\"summary\":\"Counts adds.\",\"stateVersion\":1}]}",
                     out_len);
    return *out_json ? FK_OK : fail(FK_ERR_INTERNAL, "out of memory");
}

fk_status fk_manifest(char **out_json, size_t *out_len) {
    if (!out_json) return fail(FK_ERR_NULL_ARGUMENT, "out_json is NULL");
#ifdef BARE_BROKEN_MANIFEST
    *out_json = copy("this is not a manifest", out_len);
#else
    *out_json = copy("{\"abiVersion\":1,\"library\":{\"name\":\"Bare\",\"version\":\"" BARE_VERSION "\"},"
                     "\"optionalFunctions\":[\"fk_create_with_options\",\"fk_manifest_summary\"],"
                     "\"features\":[{\"name\":\"tally\",\"summary\":\"Counts adds.\",\"stateVersion\":1,"
                     "\"inputs\":[{\"name\":\"add\",\"fields\":[]}],"
                     "\"inputSchema\":{\"title\":\"Input\",\"oneOf\":[{\"type\":\"object\",\"properties\":{\"add\":"
                     "{\"type\":\"object\",\"properties\":{},\"required\":[],\"additionalProperties\":false}},"
                     "\"required\":[\"add\"],\"additionalProperties\":false}]},"
                     "\"stateSchema\":{\"title\":\"State\",\"type\":\"object\",\"properties\":{\"count\":"
                     "{\"type\":\"integer\"}},\"required\":[\"count\"],\"additionalProperties\":false}}]}",
                     out_len);
#endif
    return *out_json ? FK_OK : fail(FK_ERR_INTERNAL, "out of memory");
}

void fk_free(void *memory) { free(memory); }

fk_status fk_create_with_options(const char *feature, size_t feature_len, const char *options_json,
                                 size_t options_len, fk_instance *out_instance) {
    if (!feature || !out_instance) return fail(FK_ERR_NULL_ARGUMENT, "feature or out_instance is NULL");
    size_t length = length_of(feature, feature_len);
    if (length != 5 || memcmp(feature, "tally", 5) != 0) return fail(FK_ERR_UNKNOWN_FEATURE, "the one feature is \"tally\"");
    if (options_json && length_of(options_json, options_len) > 0 && options_json[0] != '{')
        return fail(FK_ERR_INVALID_ARGUMENT, "the options are a JSON object");
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < SLOTS; i++) {
        if (slots[i].live) continue;
        slots[i] = (tally){ .live = 1 };
        pthread_mutex_unlock(&lock);
        *out_instance = i + 1;
        return FK_OK;
    }
    pthread_mutex_unlock(&lock);
    return fail(FK_ERR_INTERNAL, "no free slot");
}

fk_status fk_create(const char *feature, size_t feature_len, const char *state_json, size_t state_len,
                    fk_instance *out_instance) {
    if (state_json && length_of(state_json, state_len) > 0) return fail(FK_ERR_INVALID_STATE, "tally starts at 0");
    return fk_create_with_options(feature, feature_len, NULL, 0, out_instance);
}

fk_status fk_destroy(fk_instance instance) {
    pthread_mutex_lock(&lock);
    tally *t = lookup(instance);
    if (t) t->live = 0;
    pthread_mutex_unlock(&lock);
    return t ? FK_OK : fail(FK_ERR_INVALID_HANDLE, "no such instance");
}

fk_status fk_send(fk_instance instance, const char *input_json, size_t input_len) {
    if (!input_json) return fail(FK_ERR_NULL_ARGUMENT, "input_json is NULL");
    size_t length = length_of(input_json, input_len);
#ifdef BARE_POISON
    if (length == 8 && memcmp(input_json, "\"poison\"", 8) == 0) __builtin_trap();
#endif
    if (length != 5 || memcmp(input_json, "\"add\"", 5) != 0) return fail(FK_ERR_UNKNOWN_INPUT, "the one input is \"add\"");
    pthread_mutex_lock(&lock);
    tally *t = lookup(instance);
    if (!t) {
        pthread_mutex_unlock(&lock);
        return fail(FK_ERR_INVALID_HANDLE, "no such instance");
    }
    t->count += 1;
    uint64_t version = ++t->version;
    fk_change_fn callback = t->callback;
    void *user_data = t->user_data;
    pthread_mutex_unlock(&lock);
    if (callback) callback(user_data, instance, version);
    return FK_OK;
}

fk_status fk_state(fk_instance instance, char **out_json, size_t *out_len, uint64_t *out_version) {
    if (!out_json) return fail(FK_ERR_NULL_ARGUMENT, "out_json is NULL");
    char text[64];
    pthread_mutex_lock(&lock);
    tally *t = lookup(instance);
    if (t) {
        snprintf(text, sizeof text, "{\"count\":%llu}", (unsigned long long)t->count);
        if (out_version) *out_version = t->version;
    }
    pthread_mutex_unlock(&lock);
    if (!t) return fail(FK_ERR_INVALID_HANDLE, "no such instance");
    *out_json = copy(text, out_len);
    return *out_json ? FK_OK : fail(FK_ERR_INTERNAL, "out of memory");
}

fk_status fk_version(fk_instance instance, uint64_t *out_version) {
    if (!out_version) return fail(FK_ERR_NULL_ARGUMENT, "out_version is NULL");
    pthread_mutex_lock(&lock);
    tally *t = lookup(instance);
    if (t) *out_version = t->version;
    pthread_mutex_unlock(&lock);
    return t ? FK_OK : fail(FK_ERR_INVALID_HANDLE, "no such instance");
}

/* One subscriber per instance is all the bridge needs. */
fk_status fk_subscribe(fk_instance instance, fk_change_fn callback, void *user_data, uint64_t *out_subscription) {
    pthread_mutex_lock(&lock);
    tally *t = lookup(instance);
    if (t) {
        t->callback = callback;
        t->user_data = user_data;
    }
    pthread_mutex_unlock(&lock);
    if (!t) return fail(FK_ERR_INVALID_HANDLE, "no such instance");
    if (out_subscription) *out_subscription = 1;
    return FK_OK;
}

fk_status fk_unsubscribe(fk_instance instance, uint64_t subscription) {
    (void)subscription;
    pthread_mutex_lock(&lock);
    tally *t = lookup(instance);
    if (t) t->callback = NULL;
    pthread_mutex_unlock(&lock);
    return t ? FK_OK : fail(FK_ERR_INVALID_HANDLE, "no such instance");
}
