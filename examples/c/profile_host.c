/*
 * profile_host.c: the Profile store's four fetches, answered by this program.
 *
 * The feature asks the host for the pet, the family, the preschool and the baby
 * profile. This program registers a request handler, collects the four requests,
 * and answers them itself, in reverse order, from the main thread; each answer
 * lands as its own change. Then it loads again, fails one fetch, and shows the
 * error state and the cancellation of the other three.
 *
 * Build (from the repository root, after `swift build`):
 *   cc -std=c11 -pthread -Iinclude examples/c/profile_host.c -L.build/debug \
 *      -lFusionExamples -Wl,-rpath,"$PWD/.build/debug" -o profile_host && ./profile_host
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fusionkit.h"

struct request {
    uint64_t id;
    char kind[32];
};

/* What the handler has been told; it may run on another thread, hence the lock. */
struct inbox {
    pthread_mutex_t mutex;
    pthread_cond_t arrived;
    struct request requests[16];
    int count;
    int cancelled;
};

/* Pulls "id" and "kind" out of an event; a real host would use a JSON parser. */
static void on_request(void *user_data, fk_instance instance, const char *event, size_t length) {
    (void)instance; (void)length;
    struct inbox *inbox = user_data;
    printf("  host told: %s\n", event);
    pthread_mutex_lock(&inbox->mutex);
    if (strstr(event, "\"event\":\"cancel\"")) {
        inbox->cancelled++;
    } else if (inbox->count < 16) {
        struct request *r = &inbox->requests[inbox->count++];
        const char *id = strstr(event, "\"id\":");
        const char *kind = strstr(event, "\"kind\":\"");
        r->id = id ? strtoull(id + 5, NULL, 10) : 0;
        if (kind) snprintf(r->kind, sizeof r->kind, "%.*s", (int)strcspn(kind + 8, "\""), kind + 8);
    }
    pthread_cond_broadcast(&inbox->arrived);
    pthread_mutex_unlock(&inbox->mutex);
}

static void wait_for_requests(struct inbox *inbox, int count) {
    pthread_mutex_lock(&inbox->mutex);
    while (inbox->count < count) pthread_cond_wait(&inbox->arrived, &inbox->mutex);
    pthread_mutex_unlock(&inbox->mutex);
}

static const char *answer_for(const char *kind) {
    if (!strcmp(kind, "fetchPet")) return "{\"name\":\"Dubu\",\"species\":\"cat\",\"age\":4}";
    if (!strcmp(kind, "fetchFamily")) return "{\"members\":[{\"name\":\"Yuna\",\"relation\":\"mother\"}]}";
    if (!strcmp(kind, "fetchPreschool")) return "{\"name\":\"Maple\",\"className\":\"Owls\",\"teacher\":\"Mr. Seo\"}";
    return "{\"name\":\"Haneul\",\"birthDate\":\"2024-02-29\",\"heightCm\":84,\"weightKg\":11.2}";
}

static void print_state(fk_instance profile, const char *label) {
    char *json;
    uint64_t version;
    if (fk_state(profile, &json, NULL, &version) == FK_OK) {
        printf("%s (v%" PRIu64 "): %s\n", label, version, json);
        fk_free(json);
    }
}

int main(void) {
    if (fk_abi_version() != FK_ABI_VERSION) return 1;
    struct inbox inbox = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0, ""}}, 0, 0};
    fk_instance profile;
    if (fk_create("profile", FK_NUL_TERMINATED, NULL, 0, &profile) != FK_OK) return 1;
    fk_set_request_handler(profile, on_request, &inbox);

    printf("load:\n");
    fk_send(profile, "\"loadAllProfiles\"", FK_NUL_TERMINATED);
    wait_for_requests(&inbox, 4);
    for (int i = 3; i >= 0; i--) {
        struct request *r = &inbox.requests[i];
        fk_status status = fk_respond(profile, r->id, answer_for(r->kind), FK_NUL_TERMINATED);
        printf("  answered %s (request %" PRIu64 "): %s\n", r->kind, r->id, fk_status_name(status));
    }
    /* The answers are applied on the effects' threads; wait until all four landed. */
    for (int tries = 0; tries < 1000; tries++) {
        char *json;
        fk_state(profile, &json, NULL, NULL);
        int done = strstr(json, "\"isLoading\":false") != NULL;
        fk_free(json);
        if (done) break;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    print_state(profile, "loaded");

    printf("load again, and the family fetch fails:\n");
    fk_send(profile, "\"retryTapped\"", FK_NUL_TERMINATED);
    wait_for_requests(&inbox, 8);
    for (int i = 4; i < 8; i++) {
        if (!strcmp(inbox.requests[i].kind, "fetchFamily")) {
            fk_fail_request(profile, inbox.requests[i].id, "the server is down", FK_NUL_TERMINATED);
        }
    }
    for (int tries = 0; tries < 1000; tries++) {
        pthread_mutex_lock(&inbox.mutex);
        int cancelled = inbox.cancelled;
        pthread_mutex_unlock(&inbox.mutex);
        if (cancelled == 3) break;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    print_state(profile, "failed");
    printf("cancelled requests: %d\n", inbox.cancelled);

    fk_destroy(profile);
    return inbox.cancelled == 3 ? 0 : 1;
}
