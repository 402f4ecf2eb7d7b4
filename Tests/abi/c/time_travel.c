/*
 * time_travel.c: the option "history", fk_history() and fk_goto() from C, with bad
 * arguments. Closes with "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
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

static int state_has(fk_instance instance, const char *text, uint64_t *version) {
    char *json = NULL;
    if (fk_state(instance, &json, NULL, version) != FK_OK) return 0;
    int found = strstr(json, text) != NULL;
    fk_free(json);
    return found;
}

static int history_has(fk_instance instance, const char *text) {
    char *json = NULL;
    size_t length = 0;
    if (fk_history(instance, &json, &length) != FK_OK) return 0;
    int found = strstr(json, text) != NULL && strlen(json) == length;
    fk_free(json);
    return found;
}

static uint64_t changes_heard;
static void on_change(void *user_data, fk_instance instance, uint64_t version) {
    (void)user_data; (void)instance; (void)version;
    changes_heard++;
}

int main(void) {
    fk_instance counter = 0, plain = 0;
    const char *options = "{\"history\":5}";
    check(fk_create_with_options("counter", FK_NUL_TERMINATED, options, FK_NUL_TERMINATED, &counter) == FK_OK,
          "create with {\"history\":5}");
    uint64_t subscription = 0;
    fk_subscribe(counter, on_change, NULL, &subscription);
    for (int i = 0; i < 3; i++) fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    check(history_has(counter, "{\"version\":0,\"cause\":\"start\"}"), "the history starts at version 0");
    check(history_has(counter, "{\"version\":3,\"cause\":\"input\",\"input\":\"increase\"}"),
          "each input is listed as it was sent");

    uint64_t reached = 0, version = 0;
    check(fk_goto(counter, 1, &reached) == FK_OK && reached == 4, "fk_goto(1) reaches a new version, 4");
    check(state_has(counter, "\"value\":1", &version) && version == 4, "with the state of version 1");
    check(changes_heard == 4, "subscribers hear the goto as a change");
    check(history_has(counter, "{\"version\":4,\"cause\":\"goto\",\"restored\":1}"), "the goto is listed");
    check(!history_has(counter, "\"version\":2"), "the versions after the restored one are forgotten");
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    check(state_has(counter, "\"value\":2", &version) && version == 5, "the next input branches from there");

    check(fk_goto(counter, 5, &reached) == FK_OK && reached == 5, "going to the current version changes nothing");
    check(fk_goto(counter, 5, NULL) == FK_OK, "out_version may be NULL");

    /* Bad arguments: a status, a message, and nothing changed. */
    check(fk_goto(counter, 2, &reached) == FK_ERR_INVALID_ARGUMENT, "a forgotten version is refused");
    check(strstr(fk_last_error_message(), "v0, v4, v5") != NULL, "the message lists the versions kept");
    check(fk_goto(counter, 99, &reached) == FK_ERR_INVALID_ARGUMENT, "a future version is refused");
    check(state_has(counter, "\"value\":2", &version) && version == 5, "refusals change nothing");
    check(fk_history(counter, NULL, NULL) == FK_ERR_NULL_ARGUMENT, "fk_history needs out_json");
    check(fk_history(0, &(char *){NULL}, NULL) == FK_ERR_INVALID_HANDLE, "fk_history of handle 0");
    check(fk_goto(0xdeadbeef, 0, NULL) == FK_ERR_INVALID_HANDLE, "fk_goto of a made-up handle");

    /* Only the last five versions are kept. */
    for (int i = 0; i < 10; i++) fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    check(!history_has(counter, "\"version\":10,") && history_has(counter, "\"version\":11,") &&
              history_has(counter, "\"version\":15,"), "at most \"history\" versions are kept");

    check(fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &plain) == FK_OK, "create without history");
    char *json = NULL;
    check(fk_history(plain, &json, NULL) == FK_ERR_INVALID_ARGUMENT && json == NULL, "no history unless asked");
    check(strstr(fk_last_error_message(), "{\"history\": N}") != NULL, "the message says how to ask");
    check(fk_goto(plain, 0, NULL) == FK_ERR_INVALID_ARGUMENT, "no goto unless asked");

    fk_instance bad = 0;
    check(fk_create_with_options("counter", FK_NUL_TERMINATED, "{\"history\":-1}", FK_NUL_TERMINATED, &bad) ==
              FK_ERR_INVALID_ARGUMENT && bad == 0, "a negative history is refused");
    check(fk_create_with_options("counter", FK_NUL_TERMINATED, "{\"history\":100001}", FK_NUL_TERMINATED, &bad) ==
              FK_ERR_INVALID_ARGUMENT, "a history above 100000 is refused");

    /* Going back cancels the effects of the abandoned future: the Wi-Fi join. */
    fk_instance wifi = 0;
    check(fk_create_with_options("wifi", FK_NUL_TERMINATED,
                                 "{\"history\":50,\"clock\":\"manual\",\"settings\":{\"liveScan\":false}}",
                                 FK_NUL_TERMINATED, &wifi) == FK_OK, "wifi with history and a manual clock");
    fk_send(wifi, "{\"networkTapped\":{\"id\":\"blob\"}}", FK_NUL_TERMINATED);
    fk_send(wifi, "{\"passwordChanged\":{\"password\":\"blob\"}}", FK_NUL_TERMINATED);
    uint64_t before_join = 0;
    fk_version(wifi, &before_join);
    fk_send(wifi, "\"joinButtonTapped\"", FK_NUL_TERMINATED);
    fk_advance_clock(wifi, 0);
    uint64_t effects = 0, requests = 0;
    fk_pending(wifi, &effects, &requests);
    check(effects == 1, "the join is under way");
    /* fk_next_wake: how far the clock must move before the join's second is up. */
    uint64_t wake = 0;
    check(fk_next_wake(wifi, &wake) == FK_OK && wake == 1000000000u, "the join wakes in one second");
    fk_advance_clock(wifi, 250000000);
    check(fk_next_wake(wifi, &wake) == FK_OK && wake == 750000000u, "a quarter of it later, in three quarters");
    check(fk_next_wake(wifi, NULL) == FK_ERR_NULL_ARGUMENT, "fk_next_wake needs somewhere to write");
    check(fk_goto(wifi, before_join, NULL) == FK_OK, "back to before the join");
    fk_pending(wifi, &effects, &requests);
    check(effects == 0, "the join was cancelled");
    check(fk_next_wake(wifi, &wake) == FK_OK && wake == UINT64_MAX, "nothing sleeps on the clock: UINT64_MAX");
    fk_instance on_system_clock = 0;
    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &on_system_clock);
    check(fk_next_wake(on_system_clock, &wake) == FK_ERR_INVALID_ARGUMENT, "the system clock has no next wake to tell");
    check(fk_next_wake(0, &wake) == FK_ERR_INVALID_HANDLE, "nor has no instance");
    fk_destroy(on_system_clock);
    fk_advance_clock(wifi, 2000000000);
    check(state_has(wifi, "\"isConnecting\":false", NULL), "and nothing joins later");

    /* Checkpoints: an instance written down, and another going on from it. */
    fk_instance scanning = 0;
    check(fk_create_with_options("wifi", FK_NUL_TERMINATED, "{\"clock\":\"manual\",\"seed\":7}", FK_NUL_TERMINATED,
                                 &scanning) == FK_OK, "wifi on a manual clock");
    fk_send(scanning, "\"screenAppeared\"", FK_NUL_TERMINATED);
    fk_advance_clock(scanning, 4500000000u); /* two scans, and half a second */
    char *checkpoint = NULL;
    size_t checkpoint_len = 0;
    check(fk_checkpoint(scanning, &checkpoint, &checkpoint_len) == FK_OK && checkpoint != NULL &&
              strlen(checkpoint) == checkpoint_len && strstr(checkpoint, "\"clock\":4500000000") &&
              strstr(checkpoint, "\"seed\":\"7\""),
          "fk_checkpoint writes the state, the clock's time and the seed");
    check(fk_restart_effects(scanning) == FK_OK, "the live scan stops and starts again");
    check(fk_next_wake(scanning, &wake) == FK_OK && wake == 2000000000u, "its next scan two seconds from now");
    char from_checkpoint[8192];
    snprintf(from_checkpoint, sizeof from_checkpoint, "{\"clock\":\"manual\",\"checkpoint\":%s}", checkpoint);
    fk_instance resumed = 0;
    check(fk_create_with_options("wifi", FK_NUL_TERMINATED, from_checkpoint, FK_NUL_TERMINATED, &resumed) == FK_OK,
          "an instance made from the checkpoint");
    check(fk_next_wake(resumed, &wake) == FK_OK && wake == 2000000000u, "its scan restarted alike");
    for (int scan = 0; scan < 3; scan++) {
        fk_advance_clock(scanning, 2000000000u);
        fk_advance_clock(resumed, 2000000000u);
    }
    char *live_state = NULL, *resumed_state = NULL;
    uint64_t live_version = 0, resumed_version = 0;
    fk_state(scanning, &live_state, NULL, &live_version);
    fk_state(resumed, &resumed_state, NULL, &resumed_version);
    check(live_version == resumed_version && live_version > 0 && strcmp(live_state, resumed_state) == 0,
          "three scans later both drew the same networks: same state, same version");
    fk_free(live_state);
    fk_free(resumed_state);
    fk_free(checkpoint);
    fk_send(scanning, "{\"networkTapped\":{\"id\":\"blob\"}}", FK_NUL_TERMINATED);
    fk_send(scanning, "{\"passwordChanged\":{\"password\":\"blob\"}}", FK_NUL_TERMINATED);
    fk_send(scanning, "\"joinButtonTapped\"", FK_NUL_TERMINATED);
    checkpoint = NULL;
    check(fk_checkpoint(scanning, &checkpoint, NULL) == FK_ERR_BUSY && checkpoint == NULL &&
              strstr(fk_last_error_message(), "wifi.connect.join"),
          "a join under way (not restartable) makes it FK_ERR_BUSY, named");
    check(fk_restart_effects(scanning) == FK_ERR_BUSY, "and nothing is stopped");
    check(fk_checkpoint(scanning, NULL, NULL) == FK_ERR_NULL_ARGUMENT, "fk_checkpoint needs somewhere to write");
    check(fk_create_with_options("wifi", FK_NUL_TERMINATED, "{\"checkpoint\":{}}", FK_NUL_TERMINATED, &bad) ==
              FK_ERR_INVALID_ARGUMENT, "a checkpoint that is not one is refused");
    fk_instance system_clock = 0;
    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &system_clock);
    check(fk_checkpoint(system_clock, &checkpoint, NULL) == FK_ERR_INVALID_ARGUMENT, "the system clock has no checkpoint");
    fk_destroy(system_clock);
    fk_destroy(resumed);
    fk_destroy(scanning);

    fk_destroy(wifi);
    fk_destroy(plain);
    fk_destroy(counter);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
