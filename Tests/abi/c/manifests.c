/*
 * manifests.c: fk_manifest_summary() and fk_feature_manifest() from C, against the whole
 * manifest: the summary lists every feature with its state version and nothing more, and
 * each feature's entry is, byte for byte, the one fk_manifest() lists. Closes with
 * "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "fusionkit.h"

static int passed, failed;
static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok   %s\n", what); }
    else { failed++; printf("FAIL %s (last message: %s)\n", what, fk_last_error_message()); }
}

static const char *features[] = {"counter", "answer", "home", "wifi", "profile"};

int main(void) {
    if (fk_abi_version() != FK_ABI_VERSION) return 1;
    char *summary = NULL;
    size_t summary_length = 0;
    check(fk_manifest_summary(&summary, &summary_length) == FK_OK, "fk_manifest_summary succeeds");
    check(summary && strlen(summary) == summary_length, "the summary's length is its text's");
    check(summary && strstr(summary, "\"optionalFunctions\":[") && strstr(summary, "\"fk_feature_manifest\""),
          "the summary lists the optional functions");
    check(summary && !strstr(summary, "\"inputs\"") && !strstr(summary, "Schema\""),
          "the summary describes no inputs and no schema");

    /* Each feature alone, before the whole manifest has been asked for. */
    char *entries[5] = {0};
    for (int i = 0; i < 5; i++) {
        char what[96];
        size_t length = 0;
        snprintf(what, sizeof what, "fk_feature_manifest(\"%s\") succeeds", features[i]);
        check(fk_feature_manifest(features[i], FK_NUL_TERMINATED, &entries[i], &length) == FK_OK, what);
        snprintf(what, sizeof what, "%s's entry starts with its name and has inputs and schemas", features[i]);
        char start[64];
        snprintf(start, sizeof start, "{\"name\":\"%s\",", features[i]);
        check(entries[i] && strncmp(entries[i], start, strlen(start)) == 0 && strlen(entries[i]) == length
              && strstr(entries[i], "\"inputs\":[") && strstr(entries[i], "\"stateSchema\":"), what);
        snprintf(what, sizeof what, "the summary lists %s", features[i]);
        check(summary && strstr(summary, start), what);
    }

    char *manifest = NULL;
    check(fk_manifest(&manifest, NULL) == FK_OK, "fk_manifest succeeds");
    for (int i = 0; i < 5; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s's entry is the one fk_manifest lists, byte for byte", features[i]);
        check(manifest && entries[i] && strstr(manifest, entries[i]), what);
        fk_free(entries[i]);
    }
    /* The summary is the manifest's outline: same library, same order of features. */
    check(manifest && summary && strncmp(manifest, summary, strstr(summary, "\"features\"") - summary) == 0,
          "the summary and the manifest agree up to the features");

    char *again = NULL;
    check(fk_feature_manifest("counter", 7, &again, NULL) == FK_OK && again && strstr(manifest, again),
          "a name given by length works, and asking again gives the same entry");
    fk_free(again);
    fk_free(manifest);
    fk_free(summary);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
