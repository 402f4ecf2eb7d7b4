/* Calls racing fk_destroy on an instance with effects and host requests in flight.
 *
 * fusionkit.h, fk_destroy: "calls on the instance racing with its destruction either
 * complete or fail with FK_ERR_INVALID_HANDLE". A Profile on a manual clock with host
 * requests has effects waiting on the host; two threads send, answer, fail, go back and
 * move the clock while the main thread destroys it. Every status a racing call returns
 * must be one it returns without a destroy (OK, or the refusals its arguments earn here:
 * an unknown request, a version not kept, busy) or FK_ERR_INVALID_HANDLE. An outside probe
 * saw FK_ERR_UNSETTLED now and then: the destroy closes the host requests before the
 * effects waiting on them, and a settle in between took those effects for stuck ones.
 * The race is rare (a few in a thousand rounds before the fix), so the rounds are many.
 * Closes with "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <fusionkit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static fk_instance target;
static atomic_int started, stopping;
static atomic_int unexpected;
static char first_unexpected[512];
static pthread_mutex_t first_lock = PTHREAD_MUTEX_INITIALIZER;

static void expect(const char *call, fk_status status) {
    switch (status) {
    case FK_OK:
    case FK_ERR_INVALID_HANDLE:
    case FK_ERR_UNKNOWN_REQUEST: /* request ids guessed, not read */
    case FK_ERR_INVALID_ARGUMENT: /* fk_goto to a version no longer kept */
    case FK_ERR_BUSY:
        return;
    default:
        if (atomic_fetch_add(&unexpected, 1) == 0) {
            pthread_mutex_lock(&first_lock);
            snprintf(first_unexpected, sizeof first_unexpected, "%s: %s: %s", call, fk_status_name(status),
                     fk_last_error_message());
            pthread_mutex_unlock(&first_lock);
        }
    }
}

static void *answers_and_sends(void *unused) {
    (void)unused;
    while (!atomic_load(&started)) {}
    while (!atomic_load(&stopping)) {
        expect("fk_send", fk_send(target, "\"loadAllProfiles\"", FK_NUL_TERMINATED));
        expect("fk_respond", fk_respond(target, 1, "{\"name\":\"Bo\",\"species\":\"cat\",\"age\":2}", FK_NUL_TERMINATED));
        expect("fk_fail_request", fk_fail_request(target, 2, "offline", FK_NUL_TERMINATED));
    }
    return NULL;
}

static void *travels_in_time(void *unused) {
    (void)unused;
    while (!atomic_load(&started)) {}
    while (!atomic_load(&stopping)) {
        uint64_t reached;
        expect("fk_goto", fk_goto(target, 0, &reached));
        expect("fk_advance_clock", fk_advance_clock(target, 1000));
        expect("fk_restart_effects", fk_restart_effects(target));
    }
    return NULL;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    int passed = 0, failed = 0;
    for (int round = 0; round < rounds; round++) {
        if (fk_create_with_options("profile", FK_NUL_TERMINATED,
                                   "{\"clock\":\"manual\",\"requests\":\"host\",\"history\":5}", FK_NUL_TERMINATED,
                                   &target) != FK_OK) {
            printf("FAIL cannot create the profile: %s\n", fk_last_error_message());
            return 1;
        }
        atomic_store(&started, 0);
        atomic_store(&stopping, 0);
        pthread_t threads[2];
        pthread_create(&threads[0], NULL, answers_and_sends, NULL);
        pthread_create(&threads[1], NULL, travels_in_time, NULL);
        atomic_store(&started, 1);
        /* Let the calls get going, a different while each round, then destroy under them. */
        struct timespec pause = {0, 1000000L + (round % 8) * 400000L};
        nanosleep(&pause, NULL);
        fk_status destroyed = fk_destroy(target);
        atomic_store(&stopping, 1);
        for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
        if (destroyed != FK_OK) {
            printf("FAIL round %d: fk_destroy returned %s\n", round, fk_status_name(destroyed));
            return 1;
        }
    }
    if (atomic_load(&unexpected) == 0) {
        passed++;
        printf("ok   %d rounds: every call racing fk_destroy completed or got FK_ERR_INVALID_HANDLE\n", rounds);
    } else {
        failed++;
        printf("FAIL %d calls racing fk_destroy got another status; the first: %s\n", atomic_load(&unexpected),
               first_unexpected);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
