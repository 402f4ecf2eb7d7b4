/*
 * counter.c: drive the Counter feature of libFusionExamples.so through fusionkit.h.
 *
 * Build (from the repository root, after `swift build`):
 *   cc -std=c11 -Iinclude examples/c/counter.c -L.build/debug -lFusionExamples \
 *      -Wl,-rpath,"$PWD/.build/debug" -o counter && ./counter
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fusionkit.h"

/* Counts the changes we were told about; the callback runs on the sending thread
 * here, since the Counter has no asynchronous effects. */
struct changes {
    int count;
    uint64_t last_version;
};

static void on_change(void *user_data, fk_instance instance, uint64_t version) {
    (void)instance;
    struct changes *changes = user_data;
    changes->count += 1;
    changes->last_version = version;
    printf("  (changed: now at version %" PRIu64 ")\n", version);
}

/* Prints the state; returns 0 on success. */
static int print_state(fk_instance counter) {
    char *json = NULL;
    size_t length = 0;
    uint64_t version = 0;
    fk_status status = fk_state(counter, &json, &length, &version);
    if (status != FK_OK) {
        fprintf(stderr, "fk_state: %s: %s\n", fk_status_name(status), fk_last_error_message());
        return 1;
    }
    printf("state v%" PRIu64 ": %s\n", version, json);
    fk_free(json); /* owned: ours to free */
    return 0;
}

static int send(fk_instance counter, const char *input) {
    printf("send %s\n", input);
    fk_status status = fk_send(counter, input, FK_NUL_TERMINATED);
    if (status != FK_OK) {
        /* A refused input changes nothing; say why and carry on. */
        printf("  refused: %s: %s\n", fk_status_name(status), fk_last_error_message());
        return 1;
    }
    return print_state(counter);
}

int main(void) {
    if (fk_abi_version() != FK_ABI_VERSION) {
        fprintf(stderr, "library speaks ABI %u, this program was built for %d\n", fk_abi_version(), FK_ABI_VERSION);
        return 1;
    }
    printf("libFusionExamples %s, ABI %u\n", fk_library_version(), fk_abi_version());

    fk_instance counter;
    if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) != FK_OK) {
        fprintf(stderr, "fk_create: %s\n", fk_last_error_message());
        return 1;
    }

    struct changes changes = {0, 0};
    uint64_t subscription;
    if (fk_subscribe(counter, on_change, &changes, &subscription) != FK_OK) {
        fprintf(stderr, "fk_subscribe: %s\n", fk_last_error_message());
        return 1;
    }

    print_state(counter);
    send(counter, "\"increase\"");
    send(counter, "\"increase\"");
    send(counter, "{\"decrease\":{}}");
    send(counter, "\"show\"");
    send(counter, "\"alertDismissed\"");
    send(counter, "\"reset\"");
    send(counter, "\"jump\""); /* not an input of the Counter: refused */

    fk_unsubscribe(counter, subscription);
    send(counter, "\"increase\""); /* no callback any more */

    printf("told about %d changes, the last at version %" PRIu64 "\n", changes.count, changes.last_version);
    fk_destroy(counter);
    return 0;
}
