/*
 * time_travel_bench.c: what going back costs with kept snapshots (fk_goto), against
 * what the alternative, deterministic replay, costs in the same run: a new instance
 * with the same options, and every input again up to the version wanted. Also the heap
 * each kept version holds (mallinfo2), for the Counter and for a Wi-Fi state of 1,000
 * networks where each input changes one field.
 *
 *   cc -O2 -Iinclude Benchmarks/time-travel/time_travel_bench.c -L<bin> -lFusionExamples -Wl,-rpath,<bin>
 *   ./a.out [ROUNDS]   prints every sample as JSON (scripts/bench keeps three runs in
 *                      Benchmarks/results/time-travel.json; Benchmarks/report renders
 *                      the table of docs/scenarios.md from it)
 */
#define _POSIX_C_SOURCE 200809L
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fusionkit.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static fk_instance make(const char *feature, const char *options) {
    fk_instance instance = 0;
    if (fk_create_with_options(feature, FK_NUL_TERMINATED, options, FK_NUL_TERMINATED, &instance) != FK_OK) {
        fprintf(stderr, "create: %s\n", fk_last_error_message());
        exit(1);
    }
    return instance;
}

/* The i-th input of a session: the Counter goes up; the Wi-Fi screen selects networks. */
static void input(const char *feature, int i, char *out, size_t size) {
    if (strcmp(feature, "counter") == 0) snprintf(out, size, "\"increase\"");
    else snprintf(out, size, "{\"infoButtonTapped\":{\"id\":\"n%d\"}}", i % 1000);
}

static void session(fk_instance instance, const char *feature, int inputs) {
    char text[64];
    for (int i = 0; i < inputs; i++) {
        input(feature, i, text, sizeof text);
        if (fk_send(instance, text, FK_NUL_TERMINATED) != FK_OK) {
            fprintf(stderr, "send: %s\n", fk_last_error_message());
            exit(1);
        }
    }
}

static int rounds = 15;

static void print_samples(const char *name, const double *values) {
    printf("\"%s\":[", name);
    for (int i = 0; i < rounds; i++) printf("%s%.9g", i ? "," : "", values[i]);
    printf("]");
}

/* Going back `distance` versions from the last of `inputs`: with kept snapshots
 * (fk_goto), and by deterministic replay (a new instance given every input again up
 * to the version wanted), `rounds` rounds of each, every sample printed. */
static void measure(const char *label, const char *feature, const char *base_options, int inputs, int distance, int last_row) {
    static char options[1 << 18];
    double snapshot[64], replay[64];
    snprintf(options, sizeof options, "{\"history\":%d,%s", inputs + 1, base_options + 1);
    for (int round = 0; round < rounds; round++) {
        fk_instance kept = make(feature, options);
        session(kept, feature, inputs);
        uint64_t last = 0;
        fk_version(kept, &last);
        double start = now();
        if (fk_goto(kept, last - (uint64_t)distance, NULL) != FK_OK) {
            fprintf(stderr, "goto: %s\n", fk_last_error_message());
            exit(1);
        }
        snapshot[round] = now() - start;
        fk_destroy(kept);
        start = now();
        fk_instance again = make(feature, base_options);
        session(again, feature, inputs - distance);
        replay[round] = now() - start;
        fk_destroy(again);
    }
    /* Heap per kept version: the same session with and without history. */
    struct mallinfo2 before = mallinfo2();
    fk_instance without = make(feature, base_options);
    session(without, feature, inputs);
    struct mallinfo2 middle = mallinfo2();
    fk_instance with = make(feature, options);
    session(with, feature, inputs);
    struct mallinfo2 after = mallinfo2();
    double per_version = ((double)(after.uordblks - middle.uordblks) - (double)(middle.uordblks - before.uordblks)) / inputs;
    fk_destroy(with);
    fk_destroy(without);
    printf("  {\"state\":\"%s\",\"versions\":%d,\"backBy\":%d,\"heapPerVersion\":%.0f,", label, inputs, distance, per_version);
    print_samples("snapshotSeconds", snapshot);
    printf(",");
    print_samples("replaySeconds", replay);
    printf("}%s\n", last_row ? "" : ",");
}

int main(int argc, char **argv) {
    if (fk_abi_version() != FK_ABI_VERSION) return 1;
    if (argc > 1) rounds = atoi(argv[1]);
    if (rounds < 1 || rounds > 64) return 2;
    /* 1,000 networks, given as the starting state. */
    size_t size = 1 << 18;
    char *wifi = malloc(size);
    size_t used = (size_t)snprintf(wifi, size, "{\"settings\":{\"liveScan\":false},\"state\":{\"isOn\":true,\"foundNetworks\":[");
    for (int i = 0; i < 1000; i++)
        used += (size_t)snprintf(wifi + used, size - used, "%s{\"id\":\"n%d\",\"name\":\"Network %d\",\"isSecured\":%s,\"connectivity\":0.5,\"signalBars\":2,\"signalPercent\":50}",
                                 i ? "," : "", i, i, i % 2 ? "true" : "false");
    snprintf(wifi + used, size - used, "],\"selectedNetworkID\":null,\"destination\":null,\"isScanning\":false,\"otherNetworks\":[]}}");
    printf("[\n");
    measure("Counter", "counter", "{\"clock\":\"manual\"}", 1000, 1, 0);
    measure("Counter", "counter", "{\"clock\":\"manual\"}", 1000, 500, 0);
    measure("Counter", "counter", "{\"clock\":\"manual\"}", 1000, 1000, 0);
    measure("Wi-Fi, 1,000 networks", "wifi", wifi, 200, 1, 0);
    measure("Wi-Fi, 1,000 networks", "wifi", wifi, 200, 200, 1);
    printf("]\n");
    free(wifi);
    return 0;
}
