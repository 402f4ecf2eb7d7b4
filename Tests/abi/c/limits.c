/*
 * limits.c: fk_limit() and each limit it sets, from C.
 *
 * For every limit: its documented default, reading and setting (the old value comes
 * back, values above the maximum are clamped), and what going past it does: a status
 * and a message naming the limit, with nothing changed. Closes with "N passed, M failed".
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

static int message_has(const char *text) { return strstr(fk_last_error_message(), text) != NULL; }

static char *state_of(fk_instance instance, uint64_t *version) {
    char *json = NULL;
    if (fk_state(instance, &json, NULL, version) != FK_OK) return calloc(1, 1);
    return json;
}

static void reading_and_setting(void) {
    check(fk_limit(FK_LIMIT_LENGTH, -1) == 16777216, "FK_LIMIT_LENGTH defaults to 16 MiB");
    check(fk_limit(FK_LIMIT_JSON_DEPTH, -1) == 512, "FK_LIMIT_JSON_DEPTH defaults to 512");
    check(fk_limit(FK_LIMIT_SUBSCRIBERS, -1) == 1024, "FK_LIMIT_SUBSCRIBERS defaults to 1024");
    check(fk_limit(FK_LIMIT_HOST_REQUESTS, -1) == 1024, "FK_LIMIT_HOST_REQUESTS defaults to 1024");
    check(fk_limit(FK_LIMIT_INSTANCES, -1) == 100000, "FK_LIMIT_INSTANCES defaults to 100000");
    check(fk_limit(5, -1) == -1 && fk_limit(-1, 10) == -1 && fk_limit(INT32_MAX, 1) == -1,
          "a number that is no limit gives -1");
    check(fk_limit(FK_LIMIT_SUBSCRIBERS, 7) == 1024, "setting returns the old value");
    check(fk_limit(FK_LIMIT_SUBSCRIBERS, -5) == 7, "a negative value only reads");
    check(fk_limit(FK_LIMIT_SUBSCRIBERS, INT64_MAX) == 7 && fk_limit(FK_LIMIT_SUBSCRIBERS, -1) == 1048576,
          "a value above the maximum is clamped to it");
    fk_limit(FK_LIMIT_JSON_DEPTH, 100000);
    check(fk_limit(FK_LIMIT_JSON_DEPTH, 512) == 512, "the depth cannot be raised above 512");
    fk_limit(FK_LIMIT_SUBSCRIBERS, 1024);
}

static void length(void) {
    fk_instance counter;
    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter);
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    fk_limit(FK_LIMIT_LENGTH, 64);
    char text[200];
    memset(text, ' ', sizeof text);
    memcpy(text, "\"increase\"", 10);
    text[64] = 0; /* 64 bytes: at the limit */
    check(fk_send(counter, text, 64) == FK_OK, "an input of exactly the limit's length is taken");
    check(fk_send(counter, text, FK_NUL_TERMINATED) == FK_OK, "also NUL-terminated");
    text[64] = ' ';
    text[65] = 0;
    check(fk_send(counter, text, 65) == FK_ERR_LIMIT_EXCEEDED, "one byte more: FK_ERR_LIMIT_EXCEEDED");
    check(message_has("FK_LIMIT_LENGTH") && message_has("65 bytes"), "the message names the limit and the length");
    check(fk_send(counter, text, FK_NUL_TERMINATED) == FK_ERR_LIMIT_EXCEEDED, "also NUL-terminated");
    fk_buffer buffer = {text + 100, 100, 0, 0};
    check(fk_send_and_read(counter, text, 65, &buffer) == FK_ERR_LIMIT_EXCEEDED, "fk_send_and_read too");
    uint64_t version;
    char *json = state_of(counter, &version);
    check(version == 3 && strncmp(json, "{\"value\":3,", 11) == 0, "refused inputs changed nothing");
    fk_free(json);
    fk_instance other = 0;
    check(fk_create("counter", FK_NUL_TERMINATED, "{\"value\":1,\"isReset\":false,\"alert\":\"                                   \"}",
                    FK_NUL_TERMINATED, &other) == FK_ERR_LIMIT_EXCEEDED && other == 0,
          "a state longer than the limit is refused");
    fk_limit(FK_LIMIT_LENGTH, 16777216);
    check(fk_send(counter, text, 65) == FK_OK, "raised again, the same input is taken");
    fk_destroy(counter);
}

static void depth(void) {
    fk_instance counter;
    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter);
    fk_limit(FK_LIMIT_JSON_DEPTH, 2);
    check(fk_send(counter, "{\"increase\":{}}", FK_NUL_TERMINATED) == FK_OK, "nesting 2 deep is within a limit of 2");
    check(fk_send(counter, "{\"increase\":{\"x\":[]}}", FK_NUL_TERMINATED) == FK_ERR_MALFORMED_JSON,
          "nesting 3 deep: FK_ERR_MALFORMED_JSON, as depth always was");
    check(message_has("nesting deeper than 2 levels") && message_has("FK_LIMIT_JSON_DEPTH"), "the message names the limit");
    fk_limit(FK_LIMIT_JSON_DEPTH, 512);
    uint64_t version;
    fk_version(counter, &version);
    check(version == 1, "the refused input changed nothing");
    fk_destroy(counter);
}

static int calls;
static void on_change(void *user_data, fk_instance instance, uint64_t version) {
    (void)user_data; (void)instance; (void)version;
    calls++;
}

static void subscribers(void) {
    fk_instance counter;
    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter);
    fk_limit(FK_LIMIT_SUBSCRIBERS, 3);
    uint64_t ids[4] = {0};
    int made = 0;
    for (int i = 0; i < 3; i++) made += fk_subscribe(counter, on_change, NULL, &ids[i]) == FK_OK;
    check(made == 3, "three subscriptions within a limit of 3");
    check(fk_subscribe(counter, on_change, NULL, &ids[3]) == FK_ERR_LIMIT_EXCEEDED && ids[3] == 0,
          "a fourth: FK_ERR_LIMIT_EXCEEDED");
    check(message_has("FK_LIMIT_SUBSCRIBERS") && message_has("3 subscribers"), "the message names the limit");
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    check(calls == 3, "the refused subscription is never called");
    check(fk_unsubscribe(counter, ids[0]) == FK_OK && fk_subscribe(counter, on_change, NULL, &ids[3]) == FK_OK,
          "after an unsubscribe there is room again");
    fk_limit(FK_LIMIT_SUBSCRIBERS, 1024);
    fk_destroy(counter);
}

struct events { int requests, cancels; };
static void count_events(void *user_data, fk_instance instance, const char *event, size_t length) {
    (void)instance; (void)length;
    struct events *e = user_data;
    if (strstr(event, "\"event\":\"cancel\"")) e->cancels++;
    else e->requests++;
}

static void host_requests(void) {
    fk_instance profile;
    fk_create_with_options("profile", FK_NUL_TERMINATED, "{\"requests\":\"host\",\"clock\":\"manual\"}", FK_NUL_TERMINATED, &profile);
    struct events events = {0, 0};
    fk_set_request_handler(profile, count_events, &events);
    fk_limit(FK_LIMIT_HOST_REQUESTS, 2);
    check(fk_send(profile, "\"loadAllProfiles\"", FK_NUL_TERMINATED) == FK_OK, "the input that asks for four requests is taken");
    fk_advance_clock(profile, 0);
    char *json = state_of(profile, NULL);
    check(strstr(json, "FK_LIMIT_HOST_REQUESTS") != NULL, "the third request failed with a message naming the limit");
    fk_free(json);
    check(events.requests == 2 && events.cancels == 2, "the host heard of two requests, then of their cancellation");
    uint64_t effects = 9, requests = 9;
    fk_pending(profile, &effects, &requests);
    check(requests == 0, "nothing is left open");
    fk_limit(FK_LIMIT_HOST_REQUESTS, 1024);
    events.requests = events.cancels = 0;
    fk_send(profile, "\"retryTapped\"", FK_NUL_TERMINATED);
    fk_advance_clock(profile, 0);
    fk_pending(profile, &effects, &requests);
    check(events.requests == 4 && requests == 4, "with the limit raised all four are asked");
    fk_destroy(profile);
}

static void instances(void) {
    fk_limit(FK_LIMIT_INSTANCES, 3);
    fk_instance made[4] = {0};
    int ok = 0;
    for (int i = 0; i < 3; i++) ok += fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &made[i]) == FK_OK;
    check(ok == 3, "three instances within a limit of 3");
    check(fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &made[3]) == FK_ERR_LIMIT_EXCEEDED && made[3] == 0,
          "a fourth: FK_ERR_LIMIT_EXCEEDED");
    check(message_has("FK_LIMIT_INSTANCES") && message_has("3 instances are live"), "the message names the limit");
    check(fk_create_with_options("counter", FK_NUL_TERMINATED, NULL, 0, &made[3]) == FK_ERR_LIMIT_EXCEEDED,
          "fk_create_with_options too");
    fk_destroy(made[0]);
    check(fk_create("counter", FK_NUL_TERMINATED, "{\"value\":\"x\"}", FK_NUL_TERMINATED, &made[3]) == FK_ERR_INVALID_STATE,
          "a creation that fails for its own reason");
    check(fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &made[0]) == FK_OK, "gives its place back");
    fk_limit(FK_LIMIT_INSTANCES, 100000);
    for (int i = 0; i < 3; i++) fk_destroy(made[i]);
}

int main(void) {
    reading_and_setting();
    length();
    depth();
    subscribers();
    host_requests();
    instances();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
