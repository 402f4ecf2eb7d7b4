/*
 * start_probe: how long a fresh process takes to load a FusionKit library and get to
 * work, next to loading the Swift runtime alone (the floor any Swift library pays).
 * Prints nanoseconds. Run by fusion-bench, compiled by scripts/bench.
 *
 *   start_probe runtime  PATH   dlopen PATH (libswiftCore.so) only
 *   start_probe library  PATH   dlopen PATH, check fk_abi_version, read fk_manifest_summary
 *                               (what a host reads at load; fk_manifest without it)
 *   start_probe counter  PATH   the same, then the Counter's entry (fk_feature_manifest),
 *                               fk_create("counter"), one fk_send and fk_destroy: the first
 *                               Counter round trip
 *   start_probe manifest PATH   dlopen PATH, check fk_abi_version, read fk_manifest (every
 *                               feature described)
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef int32_t (*manifest_fn)(char **, size_t *);
typedef int32_t (*feature_manifest_fn)(const char *, size_t, char **, size_t *);
typedef uint32_t (*version_fn)(void);
typedef void (*free_fn)(void *);
typedef int32_t (*create_fn)(const char *, size_t, const char *, size_t, uint64_t *);
typedef int32_t (*send_fn)(uint64_t, const char *, size_t);
typedef int32_t (*destroy_fn)(uint64_t);

#define NUL_TERMINATED ((size_t)-1)

/* Reads owned text from `function` and frees it; 0 on success. */
static int read_text(manifest_fn function, free_fn release) {
    char *json = NULL;
    size_t length = 0;
    if (!function || function(&json, &length) != 0) return 1;
    release(json);
    return 0;
}

static int first_counter(void *library, free_fn release) {
    feature_manifest_fn entry = (feature_manifest_fn)dlsym(library, "fk_feature_manifest");
    create_fn create = (create_fn)dlsym(library, "fk_create");
    send_fn send = (send_fn)dlsym(library, "fk_send");
    destroy_fn destroy = (destroy_fn)dlsym(library, "fk_destroy");
    if (!create || !send || !destroy) return 1;
    if (entry) {
        char *json = NULL;
        if (entry("counter", NUL_TERMINATED, &json, NULL) != 0) return 1;
        release(json);
    }
    uint64_t counter = 0;
    if (create("counter", NUL_TERMINATED, NULL, 0, &counter) != 0) return 1;
    if (send(counter, "\"increase\"", NUL_TERMINATED) != 0) return 1;
    return destroy(counter) != 0;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    const char *mode = argv[1];
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    void *library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    if (strcmp(mode, "runtime") != 0) {
        version_fn version = (version_fn)dlsym(library, "fk_abi_version");
        free_fn release = (free_fn)dlsym(library, "fk_free");
        manifest_fn manifest = (manifest_fn)dlsym(library, "fk_manifest");
        manifest_fn summary = (manifest_fn)dlsym(library, "fk_manifest_summary");
        if (!version || !release || !manifest || version() != 1) return 1;
        if (strcmp(mode, "manifest") == 0) {
            if (read_text(manifest, release)) return 1;
        } else {
            if (read_text(summary ? summary : manifest, release)) return 1;
            if (strcmp(mode, "counter") == 0 && first_counter(library, release)) return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%lld\n", (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec));
    return 0;
}
