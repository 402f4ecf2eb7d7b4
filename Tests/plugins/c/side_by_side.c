/*
** Two FusionKit libraries in one C program, each opened with dlopen(RTLD_LOCAL) and
** reached only through its own fk_ functions: the example plugin (Chores) and the
** example library (FusionExamples). Each keeps its own features, instances, errors
** and callbacks; two threads drive one instance of each at the same time.
**
**   side_by_side libChores.so libFusionExamples.so
**
** Prints "N passed, N failed".
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusionkit.h"

static int passed, failed;

#define CHECK(cond, ...) do { \
    if (cond) { passed++; } else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

/* The functions of one library, looked up in it alone. */
typedef struct {
    const char *path;
    uint32_t (*abi_version)(void);
    const char *(*last_error_message)(void);
    fk_status (*create)(const char *, size_t, const char *, size_t, fk_instance *);
    fk_status (*destroy)(fk_instance);
    fk_status (*send)(fk_instance, const char *, size_t);
    fk_status (*state)(fk_instance, char **, size_t *, uint64_t *);
    fk_status (*subscribe)(fk_instance, fk_change_fn, void *, uint64_t *);
    fk_status (*unsubscribe)(fk_instance, uint64_t);
    void (*release)(void *);
} library;

static void *need(void *handle, const char *path, const char *name) {
    void *symbol = dlsym(handle, name);
    if (!symbol) { printf("FAIL: %s does not export %s\n", path, name); exit(1); }
    return symbol;
}

static library open_library(const char *path) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) { printf("FAIL: dlopen %s: %s\n", path, dlerror()); exit(1); }
    library lib = {.path = path};
    *(void **)&lib.abi_version = need(handle, path, "fk_abi_version");
    *(void **)&lib.last_error_message = need(handle, path, "fk_last_error_message");
    *(void **)&lib.create = need(handle, path, "fk_create");
    *(void **)&lib.destroy = need(handle, path, "fk_destroy");
    *(void **)&lib.send = need(handle, path, "fk_send");
    *(void **)&lib.state = need(handle, path, "fk_state");
    *(void **)&lib.subscribe = need(handle, path, "fk_subscribe");
    *(void **)&lib.unsubscribe = need(handle, path, "fk_unsubscribe");
    *(void **)&lib.release = need(handle, path, "fk_free");
    return lib;
}

static int state_contains(library *lib, fk_instance instance, const char *text, uint64_t *version) {
    char *json = NULL;
    if (lib->state(instance, &json, NULL, version) != FK_OK) return 0;
    int found = strstr(json, text) != NULL;
    if (!found) printf("  state: %s\n", json);
    lib->release(json);
    return found;
}

typedef struct {
    library *lib;
    fk_instance instance;
    const char *inputs[2];
    int rounds;
    int failures;
} driver;

static void *drive(void *argument) {
    driver *d = argument;
    for (int i = 0; i < d->rounds; i++)
        for (int k = 0; k < 2 && d->inputs[k]; k++)
            if (d->lib->send(d->instance, d->inputs[k], FK_NUL_TERMINATED) != FK_OK) d->failures++;
    return NULL;
}

static void count_change(void *user_data, fk_instance instance, uint64_t version) {
    (void)instance;
    (void)version;
    __atomic_add_fetch((int *)user_data, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: side_by_side libChores.so libFusionExamples.so\n"); return 64; }
    library chores = open_library(argv[1]);
    library examples = open_library(argv[2]);
    CHECK(chores.abi_version() == FK_ABI_VERSION && examples.abi_version() == FK_ABI_VERSION, "ABI versions");
    CHECK(chores.create != examples.create, "each library has its own fk_create");

    /* Each has its own features: "todo" only in Chores; "counter" in both, different. */
    fk_instance todo = 0, tally = 0, counter = 0, none = 0;
    CHECK(chores.create("todo", FK_NUL_TERMINATED, NULL, 0, &todo) == FK_OK, "Chores has todo");
    CHECK(examples.create("todo", FK_NUL_TERMINATED, NULL, 0, &none) == FK_ERR_UNKNOWN_FEATURE, "FusionExamples has no todo");
    CHECK(strstr(examples.last_error_message(), "counter") != NULL, "its error lists its own features: %s", examples.last_error_message());
    CHECK(chores.create("counter", FK_NUL_TERMINATED, NULL, 0, &tally) == FK_OK, "Chores has a counter");
    CHECK(examples.create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) == FK_OK, "FusionExamples has a counter");
    uint64_t version = 0;
    CHECK(state_contains(&chores, tally, "\"step\"", &version), "Chores' counter is the tally counter");
    CHECK(state_contains(&examples, counter, "\"isReset\"", &version), "FusionExamples' counter is the seed counter");

    /* Errors are per library and per thread, in each library's words. */
    CHECK(chores.send(tally, "\"increase\"", FK_NUL_TERMINATED) == FK_ERR_UNKNOWN_INPUT, "increase is not a tally input");
    CHECK(strstr(chores.last_error_message(), "tapped") != NULL, "Chores lists its inputs: %s", chores.last_error_message());
    CHECK(examples.send(counter, "\"tapped\"", FK_NUL_TERMINATED) == FK_ERR_UNKNOWN_INPUT, "tapped is not a counter input");
    CHECK(strstr(examples.last_error_message(), "increase") != NULL, "FusionExamples lists its inputs");
    /* A handle of one library means nothing to the other. */
    CHECK(examples.send(todo, "\"increase\"", FK_NUL_TERMINATED) == FK_ERR_INVALID_HANDLE, "a Chores handle is not a FusionExamples instance");
    CHECK(chores.send(counter, "\"tapped\"", FK_NUL_TERMINATED) == FK_ERR_INVALID_HANDLE, "nor the other way round");

    /* Callbacks stay with their library. */
    int todo_changes = 0, counter_changes = 0;
    uint64_t todo_subscription = 0, counter_subscription = 0;
    CHECK(chores.subscribe(todo, count_change, &todo_changes, &todo_subscription) == FK_OK, "subscribe todo");
    CHECK(examples.subscribe(counter, count_change, &counter_changes, &counter_subscription) == FK_OK, "subscribe counter");

    /* Two threads, one instance of each library, at the same time. */
    int rounds = 500;
    driver a = {&chores, todo, {"{\"draftChanged\":{\"text\":\"x\"}}", "\"addTapped\""}, rounds, 0};
    driver b = {&examples, counter, {"\"increase\"", NULL}, rounds, 0};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, drive, &a);
    pthread_create(&tb, NULL, drive, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.failures == 0 && b.failures == 0, "every input applied (%d, %d failures)", a.failures, b.failures);
    char expected[64];
    snprintf(expected, sizeof expected, "\"value\":%d", rounds);
    CHECK(state_contains(&examples, counter, expected, &version) && version == (uint64_t)rounds, "counter at %d, v%llu", rounds, (unsigned long long)version);
    CHECK(state_contains(&chores, todo, "\"activeCount\":500", &version) && version == (uint64_t)(2 * rounds), "todo has %d items, v%llu", rounds, (unsigned long long)version);
    CHECK(todo_changes == 2 * rounds && counter_changes == rounds, "callbacks: todo %d, counter %d", todo_changes, counter_changes);

    CHECK(chores.unsubscribe(todo, todo_subscription) == FK_OK && examples.unsubscribe(counter, counter_subscription) == FK_OK, "unsubscribe");
    CHECK(chores.destroy(todo) == FK_OK && chores.destroy(tally) == FK_OK && examples.destroy(counter) == FK_OK, "destroy");
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
