/*
 * wifi_connect.c: the Wi-Fi settings feature's connect flow, from C.
 *
 * Taps a secured network, types a wrong password, joins (one real second of
 * connecting, on a library thread), sees the incorrect-password alert, then joins
 * again with "blob" and sees the network selected and the screen dismissed. The
 * join's result arrives through the subscription callback; the main thread waits
 * for it on a condition variable.
 *
 * Build (from the repository root, after `swift build`):
 *   cc -std=c11 -pthread -Iinclude examples/c/wifi_connect.c -L.build/debug \
 *      -lFusionExamples -Wl,-rpath,"$PWD/.build/debug" -o wifi_connect && ./wifi_connect
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fusionkit.h"

/* The latest version we were told about, guarded for the callback's thread. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static uint64_t latest;

static void on_change(void *user_data, fk_instance instance, uint64_t version) {
    (void)user_data; (void)instance;
    pthread_mutex_lock(&mutex);
    latest = version;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mutex);
}

static void wait_for_version(uint64_t version) {
    pthread_mutex_lock(&mutex);
    while (latest < version) pthread_cond_wait(&changed, &mutex);
    pthread_mutex_unlock(&mutex);
}

/* Prints the parts of the state this flow is about. Returns the version. */
static uint64_t show(fk_instance wifi, const char *label) {
    char *json;
    uint64_t version;
    if (fk_state(wifi, &json, NULL, &version) != FK_OK) return 0;
    const char *selected = strstr(json, "\"selectedNetworkID\":");
    const char *screen = strstr(json, "\"destination\":{\"connect\"") ? "connect screen" : "no screen";
    /* The feature says whether Join can be tapped; a screen draws that, never works it out. */
    const char *connecting = strstr(json, "\"isConnecting\":true") ? ", connecting" : "";
    const char *join = strstr(json, "\"isJoinEnabled\":false") ? ", join disabled" : "";
    const char *alert = strstr(json, "\"incorrectPasswordAlertIsPresented\":true") ? ", incorrect-password alert" : "";
    printf("%-20s v%-3" PRIu64 " %.*s, %s%s%s%s\n", label, version,
           selected ? (int)strcspn(selected, ",}") : 0, selected ? selected : "", screen, connecting, join, alert);
    fk_free(json);
    return version;
}

static int send(fk_instance wifi, const char *input) {
    fk_status status = fk_send(wifi, input, FK_NUL_TERMINATED);
    if (status != FK_OK) fprintf(stderr, "%s: %s\n", fk_status_name(status), fk_last_error_message());
    return status;
}

int main(void) {
    if (fk_abi_version() != FK_ABI_VERSION) return 1;
    fk_instance wifi;
    /* No live scan: the list stays as it is while we watch the join. */
    if (fk_create_with_options("wifi", FK_NUL_TERMINATED, "{\"settings\":{\"liveScan\":false}}", FK_NUL_TERMINATED, &wifi) != FK_OK) {
        fprintf(stderr, "%s\n", fk_last_error_message());
        return 1;
    }
    uint64_t subscription;
    fk_subscribe(wifi, on_change, NULL, &subscription);

    show(wifi, "start");
    send(wifi, "{\"networkTapped\":{\"id\":\"blob\"}}");
    show(wifi, "tapped Blob's WiFi");
    send(wifi, "{\"passwordChanged\":{\"password\":\"hunter2\"}}");
    send(wifi, "\"joinButtonTapped\"");
    uint64_t v = show(wifi, "join with hunter2");
    wait_for_version(v + 1); /* a second later, on a library thread */
    show(wifi, "after the join");
    send(wifi, "\"incorrectPasswordAlertDismissed\"");
    send(wifi, "{\"passwordChanged\":{\"password\":\"blob\"}}");
    send(wifi, "\"joinButtonTapped\"");
    v = show(wifi, "join with blob");
    wait_for_version(v + 1);
    v = show(wifi, "after the join");

    char *json;
    fk_state(wifi, &json, NULL, NULL);
    int joined = strstr(json, "\"selectedNetworkID\":\"blob\"") && strstr(json, "\"destination\":null");
    fk_free(json);
    printf(joined ? "joined Blob's WiFi\n" : "did not join\n");

    fk_unsubscribe(wifi, subscription);
    fk_destroy(wifi);
    return joined ? 0 : 1;
}
