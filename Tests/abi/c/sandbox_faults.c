/* A sandboxed plugin's faults as a C program meets them: linked with libFusionSandbox.so
** (include/fusionkit_sandbox.h), running the faulty test plugin (Tests/sandbox/Faulty) with
** a 200 ms time limit and a 16 MiB memory cap. A trap, a loop without end and a memory hog
** each fail one call with their status; the instance is failed from then on, its last
** good state readable; the other instance answers throughout. Exit 0: every check held. */
#include <stdio.h>
#include <string.h>

#include "fusionkit.h"
#include "fusionkit_sandbox.h"

static int failures = 0;

#define CHECK(condition, what)                                          \
    do {                                                                \
        if (!(condition)) {                                             \
            fprintf(stderr, "FAILED: %s (%s)\n", what, fk_last_error_message()); \
            failures++;                                                 \
        }                                                               \
    } while (0)

static int state_is(fk_instance instance, const char *expected) {
    char *json = NULL;
    size_t length = 0;
    uint64_t version = 0;
    if (fk_state(instance, &json, &length, &version) != FK_OK) return 0;
    int same = strcmp(json, expected) == 0;
    if (!same) fprintf(stderr, "state %s, expected %s\n", json, expected);
    fk_free(json);
    return same;
}

/* One instance per fault: it fails, the other goes on. */
/* Returns the status of the faulting call. */
static fk_status fault(const char *input, fk_instance other) {
    fk_instance victim = 0;
    CHECK(fk_create("faulty", FK_NUL_TERMINATED, NULL, 0, &victim) == FK_OK, "create the victim");
    CHECK(fk_send(victim, "\"increase\"", FK_NUL_TERMINATED) == FK_OK, "increase before the fault");
    CHECK(state_is(victim, "{\"value\":1}"), "the state before the fault");
    fk_status status = fk_send(victim, input, FK_NUL_TERMINATED);
    printf("%s: %s: %s\n", input, fk_status_name(status), fk_last_error_message());
    CHECK(fk_send(victim, "\"increase\"", FK_NUL_TERMINATED) == FK_ERR_INSTANCE_FAILED, "a failed instance takes no input");
    CHECK(strstr(fk_last_error_message(), "failed earlier") != NULL, "the message says it failed earlier");
    CHECK(state_is(victim, "{\"value\":1}"), "the last good state, nothing of the faulting call");
    CHECK(fk_send(other, "\"increase\"", FK_NUL_TERMINATED) == FK_OK, "the other instance answers");
    CHECK(fk_destroy(victim) == FK_OK, "a failed instance is destroyed as any");
    return status;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s Faulty.wasm\n", argv[0]);
        return 2;
    }
    fk_instance before = 0;
    CHECK(fk_create("faulty", FK_NUL_TERMINATED, NULL, 0, &before) == FK_ERR_INVALID_ARGUMENT, "nothing before a module is open");
    CHECK(fk_sandbox_open(argv[1], FK_NUL_TERMINATED, 200000000u, 16u << 20) == FK_OK, "open the module");
    CHECK(fk_sandbox_open(argv[1], FK_NUL_TERMINATED, 0, 0) == FK_OK, "opening it again changes nothing");
    CHECK(fk_sandbox_open("other.wasm", FK_NUL_TERMINATED, 0, 0) == FK_ERR_INVALID_ARGUMENT, "one module per load");

    fk_instance other = 0;
    CHECK(fk_create("faulty", FK_NUL_TERMINATED, NULL, 0, &other) == FK_OK, "create the other instance");
    CHECK(fault("\"trap\"", other) == FK_ERR_PLUGIN_TRAPPED, "a trap");
    CHECK(fault("\"deep\"", other) == FK_ERR_PLUGIN_TRAPPED, "the interpreter's stack exhausted");
    CHECK(fault("\"spin\"", other) == FK_ERR_PLUGIN_LIMIT, "past the time limit");
    CHECK(fault("\"hog\"", other) == FK_ERR_PLUGIN_LIMIT, "past the memory cap");
    CHECK(state_is(other, "{\"value\":4}"), "the other instance counted every increase");
    CHECK(fk_send(other, "\"nonsense\"", FK_NUL_TERMINATED) == FK_ERR_UNKNOWN_INPUT, "refusals are the library's own");
    CHECK(fk_destroy(other) == FK_OK, "destroy");
    CHECK(fk_send(other, "\"increase\"", FK_NUL_TERMINATED) == FK_ERR_INVALID_HANDLE, "a destroyed handle");
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
