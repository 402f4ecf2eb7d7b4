/*
 * faults.c: the two statuses no input of a sound library reaches, FK_ERR_INTERNAL and
 * FK_ERR_UNSETTLED, produced by the real library through FUSIONKIT_FAULT (the header's
 * testing aid, read once per process: so one fault per run, named by argv[1]).
 *
 *   faults state-internal   fk_state fails with FK_ERR_INTERNAL; nothing else changes
 *   faults stray-effect     "fault.stray" on a manual clock gives FK_ERR_UNSETTLED
 *   faults none             without the variable, neither happens
 *
 * Closes with "N passed, M failed".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusionkit.h"

static int passed, failed;
static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok   %s\n", what); }
    else { failed++; printf("FAIL %s (last message: %s)\n", what, fk_last_error_message()); }
}

static int message_has(const char *text) { return strstr(fk_last_error_message(), text) != NULL; }

static const char MANUAL[] = "{\"clock\":\"manual\"}";

static void state_internal(void) {
    fk_instance counter;
    check(fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) == FK_OK, "a counter is made");
    check(fk_send(counter, "\"increase\"", FK_NUL_TERMINATED) == FK_OK, "inputs still apply");
    char *json = NULL;
    uint64_t version = 0;
    check(fk_state(counter, &json, NULL, &version) == FK_ERR_INTERNAL && json == NULL,
          "fk_state gives FK_ERR_INTERNAL and hands out nothing");
    check(message_has("cannot be written as JSON") && message_has("FUSIONKIT_FAULT=state-internal"),
          "the message says what failed and that it was injected");
    check(strcmp(fk_status_name(FK_ERR_INTERNAL), "FK_ERR_INTERNAL") == 0, "the status is named FK_ERR_INTERNAL");
    check(fk_version(counter, &version) == FK_OK && version == 1, "the instance is intact (version 1)");
    check(fk_destroy(counter) == FK_OK, "and is destroyed as usual");
}

static void stray_effect(void) {
    fk_instance stray;
    check(fk_create_with_options("fault.stray", FK_NUL_TERMINATED, MANUAL, FK_NUL_TERMINATED, &stray) == FK_OK,
          "fault.stray is made on a manual clock");
    check(fk_send(stray, "\"stray\"", FK_NUL_TERMINATED) == FK_ERR_UNSETTLED,
          "its input starts an effect off the clock: FK_ERR_UNSETTLED");
    check(message_has("\"fault.stray\"") && message_has("\"fault.stray.sleep\""),
          "the message names the feature and the effect");
    check(fk_advance_clock(stray, 1000000) == FK_ERR_UNSETTLED, "moving the clock cannot settle it either");
    check(fk_destroy(stray) == FK_OK, "destroying it stops the effect");
    fk_instance manifest_has;
    check(fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &manifest_has) == FK_OK && fk_destroy(manifest_has) == FK_OK,
          "the library's own features are unchanged");
}

static void none(void) {
    fk_instance counter, stray = 0;
    char *json = NULL;
    check(fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) == FK_OK, "a counter is made");
    check(fk_state(counter, &json, NULL, NULL) == FK_OK && json != NULL, "fk_state works");
    fk_free(json);
    fk_destroy(counter);
    check(fk_create_with_options("fault.stray", FK_NUL_TERMINATED, MANUAL, FK_NUL_TERMINATED, &stray) ==
              FK_ERR_UNKNOWN_FEATURE && stray == 0,
          "no fault.stray feature");
}

int main(int argc, char **argv) {
    const char *fault = argc > 1 ? argv[1] : "";
    if (strcmp(fault, "state-internal") == 0) state_internal();
    else if (strcmp(fault, "stray-effect") == 0) stray_effect();
    else if (strcmp(fault, "none") == 0) none();
    else { fprintf(stderr, "usage: faults state-internal|stray-effect|none\n"); return 64; }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
