/*
 * manifest_library.c: a FusionKit library that is nothing but its manifest, for the
 * manifest fuzz target. fk_manifest hands out whatever fuzz_set_manifest was given
 * (any bytes, NULs and invalid UTF-8 included), so that FusionHost reads a hostile
 * manifest through its real path: dlopen, the ABI check, libffi, the owned-text copy,
 * the parser, the Manifest model. Every other function refuses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fusionkit.h"

static uint8_t *manifest;
static size_t manifest_len;

void fuzz_set_manifest(const uint8_t *data, size_t length);
void fuzz_set_manifest(const uint8_t *data, size_t length) {
    free(manifest);
    manifest = malloc(length + 1);
    if (!manifest) abort();
    if (length) memcpy(manifest, data, length);
    manifest[length] = 0;
    manifest_len = length;
}

uint32_t fk_abi_version(void) { return FK_ABI_VERSION; }
const char *fk_library_version(void) { return "0.0.0"; }
const char *fk_status_name(fk_status status) { return status == FK_OK ? "FK_OK" : "FK_ERR_INTERNAL"; }
const char *fk_last_error_message(void) { return "this library is only a manifest"; }
fk_status fk_manifest(char **out_json, size_t *out_len) {
    if (!out_json) return FK_ERR_NULL_ARGUMENT;
    char *copy = malloc(manifest_len + 1);
    if (!copy) return FK_ERR_INTERNAL;
    memcpy(copy, manifest ? (const char *)manifest : "", manifest_len + 1);
    *out_json = copy;
    if (out_len) *out_len = manifest_len;
    return FK_OK;
}
void fk_free(void *memory) { free(memory); }
fk_status fk_create(const char *f, size_t fl, const char *s, size_t sl, fk_instance *out) {
    (void)f; (void)fl; (void)s; (void)sl; (void)out;
    return FK_ERR_INTERNAL;
}
fk_status fk_destroy(fk_instance i) { (void)i; return FK_ERR_INVALID_HANDLE; }
fk_status fk_send(fk_instance i, const char *j, size_t l) { (void)i; (void)j; (void)l; return FK_ERR_INVALID_HANDLE; }
fk_status fk_state(fk_instance i, char **j, size_t *l, uint64_t *v) { (void)i; (void)j; (void)l; (void)v; return FK_ERR_INVALID_HANDLE; }
fk_status fk_version(fk_instance i, uint64_t *v) { (void)i; (void)v; return FK_ERR_INVALID_HANDLE; }
fk_status fk_subscribe(fk_instance i, fk_change_fn c, void *u, uint64_t *s) { (void)i; (void)c; (void)u; (void)s; return FK_ERR_INVALID_HANDLE; }
fk_status fk_unsubscribe(fk_instance i, uint64_t s) { (void)i; (void)s; return FK_ERR_INVALID_HANDLE; }
