/*
 * soak.c: one instance under load from many threads, then a long run in flat memory.
 *
 *   soak [inputs-per-sender [memory-cycles]]     (defaults 20000 and 200000)
 *
 * Part 1. Four threads send inputs to one counter (increase and decrease, through
 * fk_send and fk_send_and_read, with a refused input every tenth) while two threads
 * read its state and version, one follows it with fk_state_patch, two subscribe and
 * unsubscribe in a loop, and one subscriber listens throughout. When the senders are
 * done the main thread checks that every accepted input was applied exactly once (the
 * value is increases minus decreases, the version their sum) and that the listener
 * heard every version once, in order; then it destroys the instance while the readers
 * and subscribers are still at it. No callback may run after its fk_unsubscribe
 * returned (each subscription's memory is poisoned and freed right after) or after
 * fk_destroy returned. A watchdog ends the process if anything hangs.
 *
 * Between the parts, 100 rounds each of fk_unsubscribe and of fk_respond (the first
 * answer 1 MiB long, so that the destruction lands while it is read) racing with fk_destroy:
 * each must complete or give FK_ERR_INVALID_HANDLE, as the header promises for calls
 * racing with destruction (they once gave FK_ERR_UNKNOWN_SUBSCRIPTION and
 * FK_ERR_UNKNOWN_REQUEST).
 *
 * Part 2. A profile instance whose host answers its requests: each cycle sends
 * loadAllProfiles (four request effects), answers three with fk_respond and fails the
 * fourth; five state changes per cycle, checked. The heap in use (mallinfo2) after the
 * first tenth of the cycles and at the end must differ by less than 1 MiB: memory
 * does not grow with the number of inputs.
 *
 * Closes with "N passed, M failed".
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fusionkit.h"

static int passed, failed;
static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok   %s\n", what); }
    else { failed++; printf("FAIL %s\n", what); }
    fflush(stdout);
}

#define SENDERS 4
static long per_sender = 20000;
static fk_instance counter;
static atomic_long increases, decreases, refused_wrongly, accepted_wrongly;
static atomic_int stop_readers;
static atomic_long violations;
static char violation[256];

static void violated(const char *what) {
    if (atomic_fetch_add(&violations, 1) == 0) snprintf(violation, sizeof violation, "%s", what);
}

static void *watchdog(void *arg) {
    long seconds = (long)(intptr_t)arg;
    sleep((unsigned)seconds);
    fprintf(stderr, "soak: still running after %ld s: a deadlock or a livelock\n", seconds);
    fflush(stdout);
    _exit(3);
}

static void *sender(void *arg) {
    long index = (long)(intptr_t)arg;
    char data[256];
    fk_buffer buffer = {data, sizeof data, 0, 0};
    for (long i = 0; i < per_sender; i++) {
        int up = (i + index) % 3 != 0;
        const char *input = up ? "\"increase\"" : "{\"decrease\":{}}";
        if (i % 10 == 9) {
            fk_status status = fk_send(counter, "{\"increase\":{\"by\":2}}", FK_NUL_TERMINATED);
            if (status != FK_ERR_INVALID_INPUT) atomic_fetch_add(&accepted_wrongly, 1);
            continue;
        }
        fk_status status = i % 2 ? fk_send_and_read(counter, input, FK_NUL_TERMINATED, &buffer)
                                 : fk_send(counter, input, FK_NUL_TERMINATED);
        if (status != FK_OK) {
            atomic_fetch_add(&refused_wrongly, 1);
            continue;
        }
        atomic_fetch_add(up ? &increases : &decreases, 1);
    }
    return NULL;
}

/* Readers run until told to stop; once the instance is destroyed they must see
 * FK_ERR_INVALID_HANDLE, never anything else. */
static void *reader(void *arg) {
    (void)arg;
    uint64_t last = 0;
    while (!atomic_load(&stop_readers)) {
        char *json = NULL;
        uint64_t version = 0;
        fk_status status = fk_state(counter, &json, NULL, &version);
        if (status == FK_ERR_INVALID_HANDLE) break;
        if (status != FK_OK) { violated("fk_state failed on a live instance"); break; }
        if (strncmp(json, "{\"value\":", 9) != 0) violated("fk_state gave something that is not the counter's state");
        if (version < last) violated("the version went backwards for a reader");
        last = version;
        fk_free(json);
        uint64_t v2;
        status = fk_version(counter, &v2);
        if (status == FK_OK && v2 < last) violated("fk_version went backwards");
    }
    return NULL;
}

static void *patch_reader(void *arg) {
    (void)arg;
    uint64_t held = 0;
    while (!atomic_load(&stop_readers)) {
        char *json = NULL;
        uint64_t version = 0;
        fk_status status = fk_state_patch(counter, held, &json, NULL, &version);
        if (status == FK_ERR_INVALID_HANDLE) break;
        if (status != FK_OK) { violated("fk_state_patch failed on a live instance"); break; }
        char expected[64];
        snprintf(expected, sizeof expected, "{\"from\":%" PRIu64 ",", held);
        if (strncmp(json, expected, strlen(expected)) != 0 && strncmp(json, "{\"from\":null,", 13) != 0)
            violated("a patch that starts neither from the version held nor from null");
        if (version < held) violated("a patch went backwards");
        held = version;
        fk_free(json);
    }
    return NULL;
}

/* A subscription of the churning threads: poisoned and freed as soon as fk_unsubscribe
 * returns, so a late callback is a use after free (ASan) or a poisoned read (here). */
struct churn_subscription {
    uint64_t magic;
    uint64_t last;
};
#define ALIVE 0x5AFE5AFE5AFE5AFEull
#define DEAD 0xDEADDEADDEADDEADull

static void churn_callback(void *user_data, fk_instance instance, uint64_t version) {
    (void)instance;
    struct churn_subscription *s = user_data;
    if (s->magic != ALIVE) violated("a callback ran after its fk_unsubscribe returned");
    if (version <= s->last) violated("a subscriber was told of versions out of order");
    s->last = version;
}

static void *churner(void *arg) {
    (void)arg;
    while (!atomic_load(&stop_readers)) {
        struct churn_subscription *s = malloc(sizeof *s);
        s->magic = ALIVE;
        s->last = 0;
        uint64_t id;
        fk_status status = fk_subscribe(counter, churn_callback, s, &id);
        if (status == FK_ERR_INVALID_HANDLE) { free(s); break; }
        if (status != FK_OK) { violated("fk_subscribe failed on a live instance"); free(s); break; }
        for (volatile int spin = 0; spin < 2000; spin++) {}
        status = fk_unsubscribe(counter, id);
        if (status != FK_OK && status != FK_ERR_INVALID_HANDLE) violated("fk_unsubscribe failed");
        /* After FK_ERR_INVALID_HANDLE the instance was destroyed, which also ended it. */
        s->magic = DEAD;
        free(s);
        if (status == FK_ERR_INVALID_HANDLE) break;
    }
    return NULL;
}

/* The listener: subscribed before any input, told of every version once, in order. */
static atomic_uint_fast64_t heard, heard_last, heard_after_destroy;
static atomic_int destroyed;
static void listener(void *user_data, fk_instance instance, uint64_t version) {
    (void)user_data; (void)instance;
    if (atomic_load(&destroyed)) atomic_fetch_add(&heard_after_destroy, 1);
    if (version != atomic_load(&heard_last) + 1) violated("the listener missed a version or heard one twice");
    atomic_store(&heard_last, version);
    atomic_fetch_add(&heard, 1);
}

static void part_one(void) {
    if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) != FK_OK) exit(2);
    uint64_t listening;
    fk_subscribe(counter, listener, NULL, &listening);
    pthread_t senders[SENDERS], readers[2], patcher, churners[2];
    for (long i = 0; i < SENDERS; i++) pthread_create(&senders[i], NULL, sender, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++) pthread_create(&readers[i], NULL, reader, NULL);
    pthread_create(&patcher, NULL, patch_reader, NULL);
    for (int i = 0; i < 2; i++) pthread_create(&churners[i], NULL, churner, NULL);
    for (int i = 0; i < SENDERS; i++) pthread_join(senders[i], NULL);

    long up = atomic_load(&increases), down = atomic_load(&decreases);
    char *json = NULL;
    uint64_t version = 0;
    fk_state(counter, &json, NULL, &version);
    char expected[64];
    snprintf(expected, sizeof expected, "{\"value\":%ld,", up - down);
    printf("part 1: %ld increases, %ld decreases, %ld refused; state %s at v%" PRIu64 "\n", up, down,
           SENDERS * (per_sender / 10), json, version);
    check(atomic_load(&refused_wrongly) == 0 && atomic_load(&accepted_wrongly) == 0,
          "every valid input accepted, every invalid one refused");
    check(json && strncmp(json, expected, strlen(expected)) == 0, "the value accounts for every accepted input, once");
    check(version == (uint64_t)(up + down), "the version counts every accepted input, once");
    fk_free(json);
    check(atomic_load(&heard) == version && atomic_load(&heard_last) == version,
          "the listener heard every version once, in order");

    /* Destroy while readers, the patch reader and the churners are still going. */
    check(fk_destroy(counter) == FK_OK, "destroyed while other threads use it");
    atomic_store(&destroyed, 1);
    atomic_store(&stop_readers, 1);
    for (int i = 0; i < 2; i++) pthread_join(readers[i], NULL);
    pthread_join(patcher, NULL);
    for (int i = 0; i < 2; i++) pthread_join(churners[i], NULL);
    check(atomic_load(&heard_after_destroy) == 0, "no callback after fk_destroy returned");
    if (atomic_load(&violations)) printf("first violation: %s\n", violation);
    check(atomic_load(&violations) == 0, "readers, patches and subscriptions saw nothing out of order or late");
}

static const char *answer_for(int index);

/* Between the parts: calls racing with fk_destroy. */
#define RACERS 64
struct race {
    fk_instance instance;
    uint64_t ids[RACERS];
    int count;
    atomic_int go;
    long wrong;
    fk_status wrong_status;
};

static void *unsubscriber(void *arg) {
    struct race *race = arg;
    while (!atomic_load(&race->go)) {}
    for (int i = 0; i < race->count; i++) {
        fk_status status = fk_unsubscribe(race->instance, race->ids[i]);
        if (status != FK_OK && status != FK_ERR_INVALID_HANDLE) { race->wrong++; race->wrong_status = status; }
    }
    return NULL;
}

/* A long answer, so that fk_destroy lands while fk_respond is still reading it: the
 * instance was live when the call began and its request is gone when it is answered. */
static char *long_answer;

static void *responder(void *arg) {
    struct race *race = arg;
    atomic_store(&race->go, 1);
    fk_status status = fk_respond(race->instance, race->ids[0], long_answer, FK_NUL_TERMINATED);
    if (status != FK_OK && status != FK_ERR_INVALID_HANDLE) { race->wrong++; race->wrong_status = status; }
    /* The others answered too (not failed: a failure makes the feature cancel the rest,
     * and answering a cancelled request is rightly FK_ERR_UNKNOWN_REQUEST). */
    for (int i = 1; i < race->count && i < 4; i++) {
        status = fk_respond(race->instance, race->ids[i], answer_for(i), FK_NUL_TERMINATED);
        if (status != FK_OK && status != FK_ERR_INVALID_HANDLE) { race->wrong++; race->wrong_status = status; }
    }
    return NULL;
}

static void nothing(void *user_data, fk_instance instance, uint64_t version) { (void)user_data; (void)instance; (void)version; }

static void record_request(void *user_data, fk_instance instance, const char *event, size_t length) {
    (void)instance; (void)length;
    struct race *race = user_data;
    if (strstr(event, "\"event\":\"request\"") && race->count < RACERS)
        race->ids[race->count++] = strtoull(strstr(event, "\"id\":") + 5, NULL, 10);
}

static void racing_destroy(void) {
    size_t padding = 1 << 20;
    long_answer = malloc(padding + 64);
    strcpy(long_answer, "{\"species\":\"cat\",\"age\":4,\"name\":\"");
    size_t at = strlen(long_answer);
    memset(long_answer + at, 'x', padding);
    strcpy(long_answer + at + padding, "\"}");
    long wrong_unsubscribe = 0, wrong_answer = 0;
    fk_status seen_unsubscribe = FK_OK, seen_answer = FK_OK;
    for (int round = 0; round < 100; round++) {
        struct race race = {0};
        fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &race.instance);
        for (race.count = 0; race.count < RACERS; race.count++) fk_subscribe(race.instance, nothing, NULL, &race.ids[race.count]);
        pthread_t thread;
        pthread_create(&thread, NULL, unsubscriber, &race);
        atomic_store(&race.go, 1);
        for (volatile int spin = 0; spin < (round % 20) * 500; spin++) {}
        fk_destroy(race.instance);
        pthread_join(thread, NULL);
        wrong_unsubscribe += race.wrong;
        if (race.wrong) seen_unsubscribe = race.wrong_status;

        struct race answers = {0};
        fk_create_with_options("profile", FK_NUL_TERMINATED, "{\"requests\":\"host\"}", FK_NUL_TERMINATED, &answers.instance);
        fk_set_request_handler(answers.instance, record_request, &answers);
        fk_send(answers.instance, "\"loadAllProfiles\"", FK_NUL_TERMINATED);
        pthread_create(&thread, NULL, responder, &answers);
        while (!atomic_load(&answers.go)) {}
        for (volatile int spin = 0; spin < (round % 20) * 200; spin++) {}
        fk_destroy(answers.instance);
        pthread_join(thread, NULL);
        wrong_answer += answers.wrong;
        if (answers.wrong) seen_answer = answers.wrong_status;
    }
    if (wrong_unsubscribe) printf("fk_unsubscribe racing with fk_destroy gave %s %ld times\n", fk_status_name(seen_unsubscribe), wrong_unsubscribe);
    if (wrong_answer) printf("an answer racing with fk_destroy gave %s %ld times\n", fk_status_name(seen_answer), wrong_answer);
    check(wrong_unsubscribe == 0, "fk_unsubscribe racing with fk_destroy completes or gives FK_ERR_INVALID_HANDLE");
    check(wrong_answer == 0, "fk_respond racing with fk_destroy completes or gives FK_ERR_INVALID_HANDLE");
    free(long_answer);
}

/* Part 2 */
struct inbox {
    uint64_t ids[8];
    int count;
};
static void collect(void *user_data, fk_instance instance, const char *event, size_t length) {
    (void)instance; (void)length;
    struct inbox *inbox = user_data;
    if (strstr(event, "\"event\":\"request\"") && inbox->count < 8)
        inbox->ids[inbox->count++] = strtoull(strstr(event, "\"id\":") + 5, NULL, 10);
}

static size_t heap_in_use(void) { return mallinfo2().uordblks; }

/* The answers to fetchPet, fetchFamily, fetchPreschool and fetchBabyProfile. */
static const char *answer_for(int index) {
    static const char *answers[] = {
        "{\"name\":\"Dubu\",\"species\":\"cat\",\"age\":4}",
        "{\"members\":[{\"name\":\"Yuna\",\"relation\":\"mother\"}]}",
        "{\"name\":\"Maple\",\"className\":\"Owls\",\"teacher\":\"Mr. Seo\"}",
        "{\"name\":\"Haneul\",\"birthDate\":\"2024-02-29\",\"heightCm\":84,\"weightKg\":11.2}",
    };
    return answers[index];
}

static void part_two(long cycles) {
    fk_instance profile;
    if (fk_create_with_options("profile", FK_NUL_TERMINATED, "{\"requests\":\"host\"}", FK_NUL_TERMINATED, &profile) != FK_OK)
        exit(2);
    struct inbox inbox;
    fk_set_request_handler(profile, collect, &inbox);
    long bad = 0;
    size_t warm = 0;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long cycle = 0; cycle < cycles; cycle++) {
        if (cycle == cycles / 10) warm = heap_in_use();
        inbox.count = 0;
        if (fk_send(profile, "\"loadAllProfiles\"", FK_NUL_TERMINATED) != FK_OK || inbox.count != 4) { bad++; continue; }
        for (int i = 0; i < 3; i++)
            if (fk_respond(profile, inbox.ids[i], answer_for(i), FK_NUL_TERMINATED) != FK_OK) bad++;
        if (fk_fail_request(profile, inbox.ids[3], "offline", FK_NUL_TERMINATED) != FK_OK) bad++;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    size_t after = heap_in_use();
    uint64_t version = 0, requests = 9;
    fk_version(profile, &version);
    fk_pending(profile, NULL, &requests);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("part 2: %ld cycles, %ld inputs and answers in %.1f s; heap in use %zu bytes after %ld cycles, %zu at the end (%+ld)\n",
           cycles, cycles * 5, seconds, warm, cycles / 10, after, (long)after - (long)warm);
    check(bad == 0, "every input and answer accepted");
    check(version == (uint64_t)cycles * 5, "five changes per cycle, none lost or doubled");
    check(requests == 0, "no request left open");
    check(after < warm + 1024 * 1024, "the heap in use grew by less than 1 MiB");
    fk_destroy(profile);
}

int main(int argc, char **argv) {
    if (argc > 1) per_sender = atol(argv[1]);
    long cycles = argc > 2 ? atol(argv[2]) : 200000;
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, (void *)(intptr_t)(argc > 3 ? atol(argv[3]) : 600));
    part_one();
    racing_destroy();
    if (cycles > 0) part_two(cycles);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
