/*
 * start_probe: how long a fresh process takes to load a FusionKit library and read
 * its manifest, next to loading the Swift runtime alone (the floor any Swift
 * library pays). Prints nanoseconds. Run by fusion-bench, compiled by scripts/bench.
 *
 *   start_probe library PATH     dlopen PATH, check fk_abi_version, read fk_manifest
 *   start_probe runtime PATH     dlopen PATH (libswiftCore.so) only
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef int32_t (*manifest_fn)(char **, size_t *);
typedef uint32_t (*version_fn)(void);
typedef void (*free_fn)(void *);

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    void *library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    if (strcmp(argv[1], "library") == 0) {
        version_fn version = (version_fn)dlsym(library, "fk_abi_version");
        manifest_fn manifest = (manifest_fn)dlsym(library, "fk_manifest");
        free_fn release = (free_fn)dlsym(library, "fk_free");
        if (!version || !manifest || !release || version() != 1) return 1;
        char *json = NULL;
        size_t length = 0;
        if (manifest(&json, &length) != 0) return 1;
        release(json);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%lld\n", (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec));
    return 0;
}
