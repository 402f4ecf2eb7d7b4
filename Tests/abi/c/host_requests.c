/*
 * host_requests.c: creation options, the manual clock and host requests, from C.
 * Closes with "N passed, M failed".
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

/* The state as a string the caller frees. */
static char *state_of(fk_instance instance, uint64_t *version) {
    char *json = NULL;
    if (fk_state(instance, &json, NULL, version) != FK_OK) return calloc(1, 1);
    return json;
}

static int state_has(fk_instance instance, const char *text) {
    char *json = state_of(instance, NULL);
    int found = strstr(json, text) != NULL;
    fk_free(json);
    return found;
}

/* Advancing a manual clock by nothing waits until the effects have settled: each
 * is asleep on the clock, waiting for a host request, or done. */
static void settle(fk_instance instance) {
    fk_advance_clock(instance, 0);
}

static uint64_t event_id(const char *event) {
    const char *id = strstr(event, "\"id\":");
    return id ? strtoull(id + 5, NULL, 10) : 0;
}

struct tally {
    int requests;
    int cancels;
};

static void count_events(void *user_data, fk_instance instance, const char *event, size_t length) {
    (void)instance;
    struct tally *t = user_data;
    if (strlen(event) != length) t->requests = -1000; /* length must match the text */
    if (strstr(event, "\"event\":\"cancel\"")) t->cancels++;
    else t->requests++;
}

static void polling(void) {
    fk_instance profile;
    check(fk_create_with_options("profile", FK_NUL_TERMINATED, "{\"requests\":\"host\",\"clock\":\"manual\"}", FK_NUL_TERMINATED, &profile) == FK_OK,
          "create with requests=host and a manual clock");
    fk_send(profile, "\"loadAllProfiles\"", FK_NUL_TERMINATED);
    settle(profile); /* the fetches start on effect threads */
    uint64_t ids[4] = {0};
    const char *kinds[4] = {"fetchPet", "fetchFamily", "fetchPreschool", "fetchBabyProfile"};
    int in_order = 1;
    for (int i = 0; i < 4; i++) {
        char *event = NULL;
        size_t length = 0;
        fk_poll_request(profile, &event, &length);
        if (!event) { in_order = 0; break; }
        ids[i] = event_id(event);
        int known = 0;
        for (int k = 0; k < 4; k++) known |= strstr(event, kinds[k]) != NULL;
        in_order &= known && strstr(event, "\"event\":\"request\"") && strstr(event, "\"payload\":{\"profileID\":\"baby-1\"}") && length == strlen(event);
        fk_free(event);
    }
    check(in_order, "four request events polled, each with id, kind and payload");
    char *none = (char *)1;
    size_t none_length = 99;
    check(fk_poll_request(profile, &none, &none_length) == FK_OK && none == NULL && none_length == 0, "polling with nothing waiting gives NULL");

    /* Find the pet request's id by asking for the pet shape: a wrong shape is refused. */
    uint64_t before_version;
    char *before = state_of(profile, &before_version);
    int refused = 0;
    uint64_t pet = 0;
    char message[512] = "";
    for (int i = 0; i < 4; i++) {
        fk_status status = fk_respond(profile, ids[i], "{\"name\":5,\"species\":\"cat\",\"age\":1}", FK_NUL_TERMINATED);
        if (status == FK_ERR_INVALID_RESPONSE && strstr(fk_last_error_message(), "fetchPet")) {
            refused = 1;
            pet = ids[i];
            snprintf(message, sizeof message, "%s", fk_last_error_message());
        }
    }
    uint64_t after_version;
    char *after = state_of(profile, &after_version);
    check(refused && strstr(message, "does not fit") != NULL && strstr(message, "$.name") != NULL, "a response of the wrong shape gives FK_ERR_INVALID_RESPONSE naming the request");
    check(before_version == after_version && strcmp(before, after) == 0, "a refused response changes nothing");
    fk_free(before);
    fk_free(after);
    check(fk_respond(profile, pet, "{\"name\":\"Nabi\",\"species\":\"cat\",\"age\":1}", FK_NUL_TERMINATED) == FK_OK, "the request stays open and can be answered again");
    check(fk_respond(profile, pet, "{\"name\":\"Nabi\",\"species\":\"cat\",\"age\":1}", FK_NUL_TERMINATED) == FK_ERR_UNKNOWN_REQUEST, "answering twice gives FK_ERR_UNKNOWN_REQUEST");
    check(fk_fail_request(profile, 987654, "no", FK_NUL_TERMINATED) == FK_ERR_UNKNOWN_REQUEST, "failing an unknown request gives FK_ERR_UNKNOWN_REQUEST");
    settle(profile); /* the pet lands on its effect's thread */
    check(state_has(profile, "\"pet\":{\"name\":\"Nabi\""), "the answer lands in the state");

    /* A handler set now gets nothing old (nothing is queued); destroying cancels the three still open. */
    struct tally tally = {0, 0};
    check(fk_set_request_handler(profile, count_events, &tally) == FK_OK, "set a handler");
    check(fk_destroy(profile) == FK_OK && tally.cancels == 3 && tally.requests == 0, "destroy tells the handler of every open request, before it returns");
}

static void answer_order(void) {
    fk_instance profile;
    fk_create_with_options("profile", FK_NUL_TERMINATED, "{\"requests\":\"host\"}", FK_NUL_TERMINATED, &profile);
    fk_send(profile, "\"loadAllProfiles\"", FK_NUL_TERMINATED);
    uint64_t pet = 0, family = 0;
    for (int i = 0; i < 4; i++) {
        char *event = NULL;
        fk_poll_request(profile, &event, NULL);
        if (!event) break;
        if (strstr(event, "fetchPet")) pet = event_id(event);
        if (strstr(event, "fetchFamily")) family = event_id(event);
        fk_free(event);
    }
    check(pet != 0 && family != 0, "the four requests are there as soon as the input returns");
    fk_respond(profile, pet, "{\"name\":\"Bori\",\"species\":\"cat\",\"age\":2}", FK_NUL_TERMINATED);
    check(state_has(profile, "\"pet\":{\"name\":\"Bori\""), "an answer is applied before fk_respond returns");
    fk_fail_request(profile, family, "offline", FK_NUL_TERMINATED);
    check(state_has(profile, "\"pet\":{\"name\":\"Bori\"") && state_has(profile, "offline"),
          "a failure right after an answer keeps the answer and shows the error");
    fk_destroy(profile);
}

static void manual_clock(void) {
    fk_instance wifi;
    check(fk_create_with_options("wifi", FK_NUL_TERMINATED, "{\"clock\":\"manual\",\"settings\":{\"liveScan\":false}}", FK_NUL_TERMINATED, &wifi) == FK_OK,
          "create wifi on a manual clock");
    fk_send(wifi, "{\"networkTapped\":{\"id\":\"blob\"}}", FK_NUL_TERMINATED);
    fk_send(wifi, "{\"passwordChanged\":{\"password\":\"blob\"}}", FK_NUL_TERMINATED);
    fk_send(wifi, "\"joinButtonTapped\"", FK_NUL_TERMINATED);
    check(state_has(wifi, "\"isConnecting\":true"), "joining: connecting");
    check(fk_advance_clock(wifi, 999000000ull) == FK_OK && state_has(wifi, "\"isConnecting\":true"), "999 ms later: still connecting");
    check(fk_advance_clock(wifi, 1000000ull) == FK_OK && state_has(wifi, "\"selectedNetworkID\":\"blob\"") && state_has(wifi, "\"destination\":null"),
          "one second later, as advance returns: joined and dismissed");
    fk_destroy(wifi);

    fk_instance profile;
    fk_create_with_options("profile", FK_NUL_TERMINATED, "{\"clock\":\"manual\"}", FK_NUL_TERMINATED, &profile);
    fk_send(profile, "\"loadAllProfiles\"", FK_NUL_TERMINATED);
    settle(profile); /* the four built-in answers are now asleep for 300 ms on the clock */
    check(fk_advance_clock(profile, 300000000ull) == FK_OK && state_has(profile, "\"isLoading\":false") && state_has(profile, "\"Mochi\""),
          "built-in answers arrive when the manual clock passes their delay");
    fk_destroy(profile);
}

static void seeds(void) {
    char first[8][64], second[8][64], other[8][64];
    fk_instance a, b, c;
    fk_create_with_options("home", FK_NUL_TERMINATED, "{\"seed\":42}", FK_NUL_TERMINATED, &a);
    fk_create_with_options("home", FK_NUL_TERMINATED, "{\"seed\":42}", FK_NUL_TERMINATED, &b);
    fk_create_with_options("home", FK_NUL_TERMINATED, "{\"seed\":7}", FK_NUL_TERMINATED, &c);
    int same = 1, differs = 0;
    for (int i = 0; i < 8; i++) {
        fk_instance each[3] = {a, b, c};
        char (*out[3])[64] = {first, second, other};
        for (int k = 0; k < 3; k++) {
            fk_send(each[k], "\"tap2\"", FK_NUL_TERMINATED);
            char *json = state_of(each[k], NULL);
            snprintf(out[k][i], 64, "%s", strstr(json, "\"desc\"") ? strstr(json, "\"desc\"") : "");
            fk_free(json);
        }
        same &= strcmp(first[i], second[i]) == 0;
        differs |= strcmp(first[i], other[i]) != 0;
    }
    check(same, "the same seed draws the same numbers");
    check(differs, "another seed draws other numbers");
    fk_destroy(a); fk_destroy(b); fk_destroy(c);
}

static void patches(void) {
    fk_instance counter;
    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter);
    char *json = NULL;
    uint64_t to = 99;
    check(fk_state_patch(counter, 0, &json, NULL, &to) == FK_OK && to == 0 && strcmp(json, "{\"from\":0,\"to\":0,\"patch\":[]}") == 0,
          "a patch from the current version is empty");
    fk_free(json);
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    fk_state_patch(counter, 0, &json, NULL, &to);
    check(to == 2 && strstr(json, "{\"op\":\"replace\",\"path\":\"/value\",\"value\":2}") != NULL && strstr(json, "\"from\":0,\"to\":2") != NULL,
          "a patch from version 0 to 2 replaces /value with 2");
    fk_free(json);
    fk_state_patch(counter, 12345, &json, NULL, &to);
    check(to == 2 && strstr(json, "{\"from\":null,\"to\":2,\"state\":{\"value\":2,") == json, "a version not kept gives the whole state");
    fk_free(json);
    fk_destroy(counter);
}

int main(void) {
    patches();
    polling();
    answer_order();
    manual_clock();
    seeds();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
