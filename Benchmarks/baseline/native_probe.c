/* native_probe: one library's figures, for Benchmarks/baseline/run.py, which runs it on
 * the library as it is and as it was before a change, in alternating processes.
 *
 *   native_probe LIB roundtrip COUNT   the Counter's one-call round trip
 *                                      (fk_send_and_read of "increase"), ns per call
 *   native_probe LIB heap COUNT        the heap each of COUNT Counter instances holds,
 *                                      bytes (mallinfo2 before and after creating them)
 *
 * The library is opened with dlopen, so the same program measures any build of it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fusionkit.h"

typedef fk_status (*create_fn)(const char *, size_t, const char *, size_t, fk_instance *);
typedef fk_status (*send_and_read_fn)(fk_instance, const char *, size_t, fk_buffer *);
typedef void (*destroy_fn)(fk_instance);

static void *need(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (!symbol) {
        fprintf(stderr, "native_probe: %s not found: %s\n", name, dlerror());
        exit(2);
    }
    return symbol;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: native_probe LIB roundtrip|heap COUNT\n");
        return 2;
    }
    long count = strtol(argv[3], NULL, 10);
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "native_probe: %s\n", dlerror());
        return 2;
    }
    create_fn create = (create_fn)need(library, "fk_create");
    destroy_fn destroy = (destroy_fn)need(library, "fk_destroy");
    if (strcmp(argv[2], "roundtrip") == 0) {
        send_and_read_fn send_and_read = (send_and_read_fn)need(library, "fk_send_and_read");
        fk_instance counter = 0;
        if (create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) != FK_OK) return 1;
        static char room[4096];
        fk_buffer buffer = {.data = room, .capacity = sizeof room};
        /* Warm: the buffer grown to size, the code paged in. */
        for (long i = 0; i < count / 10 + 1; i++) send_and_read(counter, "\"increase\"", 10, &buffer);
        double started = now_ns();
        for (long i = 0; i < count; i++) send_and_read(counter, "\"increase\"", 10, &buffer);
        double per_call = (now_ns() - started) / (double)count;
        destroy(counter);
        printf("%.3f\n", per_call);
    } else if (strcmp(argv[2], "heap") == 0) {
        fk_instance *instances = calloc((size_t)count, sizeof(fk_instance));
        fk_instance first = 0;
        /* The feature described and the runtime warmed by a first instance, not counted. */
        if (create("counter", FK_NUL_TERMINATED, NULL, 0, &first) != FK_OK) return 1;
        size_t before = mallinfo2().uordblks;
        for (long i = 0; i < count; i++)
            if (create("counter", FK_NUL_TERMINATED, NULL, 0, &instances[i]) != FK_OK) return 1;
        size_t after = mallinfo2().uordblks;
        printf("%.1f\n", (double)(after - before) / (double)count);
        for (long i = 0; i < count; i++) destroy(instances[i]);
        destroy(first);
        free(instances);
    } else {
        fprintf(stderr, "native_probe: unknown measure %s\n", argv[2]);
        return 2;
    }
    return 0;
}
