/*
 * threads.c: one instance driven from several threads at once.
 *
 * Two threads send 20000 inputs each to one counter. Every input must be applied
 * exactly once (final value and version 40000), and the subscriber must be told
 * about every version, in increasing order, never two callbacks at a time. Then a
 * subscriber unsubscribes itself from inside its callback, a callback destroys its own
 * instance while the send that called it is still in it, an instance is destroyed
 * while another thread is sending to it, and an instance is driven while another
 * thread creates and destroys hundreds. Closes with "N passed, M failed".
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "fusionkit.h"

#define PER_THREAD 20000

static fk_instance counter;
static atomic_int in_callback;
static atomic_int overlapped;
static uint64_t last_seen;
static uint64_t calls;
static int out_of_order;

static void on_change(void *user_data, fk_instance instance, uint64_t version) {
    (void)user_data; (void)instance;
    if (atomic_fetch_add(&in_callback, 1) != 0) atomic_store(&overlapped, 1);
    if (version != last_seen + 1) out_of_order++;
    last_seen = version;
    calls++;
    atomic_fetch_sub(&in_callback, 1);
}

static void *sender(void *arg) {
    const char *input = arg;
    for (int i = 0; i < PER_THREAD; i++) fk_send(counter, input, FK_NUL_TERMINATED);
    return NULL;
}

struct self_unsubscribe {
    fk_instance instance;
    uint64_t subscription;
    int calls;
    fk_status status;
};

static void unsubscribes_itself(void *user_data, fk_instance instance, uint64_t version) {
    (void)version;
    struct self_unsubscribe *s = user_data;
    s->calls++;
    s->status = fk_unsubscribe(instance, s->subscription);
}

struct self_destroy {
    int calls;
    fk_status status;
};

static void destroys_its_instance(void *user_data, fk_instance instance, uint64_t version) {
    (void)version;
    struct self_destroy *s = user_data;
    s->calls++;
    s->status = fk_destroy(instance);
}

static atomic_int racing_failures;
static fk_instance doomed;

static void *race_sender(void *arg) {
    (void)arg;
    for (int i = 0; i < 100000; i++) {
        fk_status status = fk_send(doomed, "\"increase\"", FK_NUL_TERMINATED);
        if (status == FK_ERR_INVALID_HANDLE) return NULL;
        if (status != FK_OK) atomic_fetch_add(&racing_failures, 1);
    }
    return NULL;
}

/* One thread drives its own instance while another creates and destroys hundreds of
 * others (the handle table grows pages and reuses slots under it): every input of the
 * first must be applied, and every stale handle of the second refused. */
static fk_instance steady;
static atomic_int steady_failures;

static void *steady_sender(void *arg) {
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        if (fk_send(steady, "\"increase\"", FK_NUL_TERMINATED) != FK_OK) atomic_fetch_add(&steady_failures, 1);
    }
    return NULL;
}

static uint64_t version_of_steady(void) {
    uint64_t version = 0;
    fk_version(steady, &version);
    return version;
}

static int churn_beside(void) {
    int stale_accepted = 0;
    fk_instance made[600];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 600; i++) fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &made[i]);
        for (int i = 0; i < 600; i++) fk_destroy(made[i]);
        for (int i = 0; i < 600; i++) {
            if (fk_send(made[i], "\"increase\"", FK_NUL_TERMINATED) != FK_ERR_INVALID_HANDLE) stale_accepted++;
        }
    }
    return stale_accepted;
}

static int passed, failed;
static void check(int ok, const char *what) {
    if (ok) { passed++; printf("ok   %s\n", what); }
    else { failed++; printf("FAIL %s\n", what); }
}

int main(void) {
    if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) != FK_OK) return 2;
    uint64_t subscription;
    if (fk_subscribe(counter, on_change, NULL, &subscription) != FK_OK) return 2;

    pthread_t a, b;
    pthread_create(&a, NULL, sender, "\"increase\"");
    pthread_create(&b, NULL, sender, "{\"increase\":{}}");
    pthread_join(a, NULL);
    pthread_join(b, NULL);

    char *json; uint64_t version;
    fk_state(counter, &json, NULL, &version);
    char expected[64];
    snprintf(expected, sizeof expected, "{\"value\":%d,", 2 * PER_THREAD);
    check(strncmp(json, expected, strlen(expected)) == 0, "every input from two threads applied exactly once");
    check(version == 2 * PER_THREAD, "version counts every change");
    fk_free(json);
    check(calls == 2 * PER_THREAD, "subscriber told about every change");
    check(out_of_order == 0, "changes delivered in version order");
    check(atomic_load(&overlapped) == 0, "never two callbacks at once");
    check(fk_unsubscribe(counter, subscription) == FK_OK, "unsubscribe");
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    check(calls == 2 * PER_THREAD, "no callback after unsubscribe");

    struct self_unsubscribe s = {counter, 0, 0, -1};
    fk_subscribe(counter, unsubscribes_itself, &s, &s.subscription);
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    fk_send(counter, "\"increase\"", FK_NUL_TERMINATED);
    check(s.calls == 1 && s.status == FK_OK, "a callback can unsubscribe itself, and is not called again");
    fk_destroy(counter);

    /* The send is still in the instance when its callback destroys it: the destroy must
       not wait for that send (it would wait for itself), and the instance is freed when
       the send is out of it (valgrind and ASan see no use after free). */
    fk_instance self_destroyed;
    uint64_t self_subscription;
    struct self_destroy d = {0, -1};
    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &self_destroyed);
    fk_subscribe(self_destroyed, destroys_its_instance, &d, &self_subscription);
    fk_status outer = fk_send(self_destroyed, "\"increase\"", FK_NUL_TERMINATED);
    check(d.calls == 1 && d.status == FK_OK, "a callback can destroy its own instance");
    check(outer == FK_OK, "the send whose callback destroyed the instance completes");
    check(fk_send(self_destroyed, "\"increase\"", FK_NUL_TERMINATED) == FK_ERR_INVALID_HANDLE,
          "the handle is refused once its callback destroyed it");

    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &doomed);
    pthread_t racer;
    pthread_create(&racer, NULL, race_sender, NULL);
    for (volatile int spin = 0; spin < 200000; spin++) {}
    check(fk_destroy(doomed) == FK_OK, "destroy while another thread sends");
    pthread_join(racer, NULL);
    check(atomic_load(&racing_failures) == 0, "racing sends either apply or report an invalid handle");

    fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &steady);
    pthread_t driver;
    pthread_create(&driver, NULL, steady_sender, NULL);
    int stale_accepted = churn_beside();
    pthread_join(driver, NULL);
    check(atomic_load(&steady_failures) == 0 && version_of_steady() == PER_THREAD,
          "an instance driven while others are created and destroyed loses no input");
    check(stale_accepted == 0, "handles of destroyed instances are refused, slots reused or not");
    fk_destroy(steady);

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
