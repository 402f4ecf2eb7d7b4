/*
** web_load: a loopback load run against `fusion serve`, next to the same inputs sent
** through the C ABI in the same run. A benchmark, not a test: it reports, it does not
** judge. Bounded in count (--sessions x --inputs) and in time (--seconds).
**
**   web_load --port P --server-pid PID --library libFusionExamples.so
**            [--sessions 1000] [--inputs 20] [--interval-ms 500] [--seconds 120] [--wait sleep|spin]
**            [--trace FILE]
**
** 1. Opens --sessions WebSockets, each a session of its own creating one Counter, and
**    reads the server's resident memory at half and at all of them: the difference
**    divided by the sessions between is the memory of one idle session.
** 2. Every session sends "increase" every --interval-ms (staggered, and never before
**    the previous input's ok), --inputs times; the latency of an input is the time
**    from writing it to reading its change (web…: a patch, or the whole state where that
**    costs less, as for a Counter), and to reading its ok (ok…).
** 3. The same number of inputs to as many instances through the C ABI in this process:
**    fk_send then fk_state_patch since the last version, which is the work the bridge
**    does per input without the network, the JSON envelope and the tasks.
** Between sends the loader sleeps until the next one is due (--wait sleep, the default),
** so the server has the cores to itself; each latency then includes the loader's own
** wake-up. --wait spin polls without sleeping instead (what every run before
** 2026-11-26 did): no wake-up in the latencies, but one core taken from the server.
** During the load, the scheduler's accounts of both processes' threads (/proc schedstat):
** the CPU time each used, and how long their threads waited for a CPU while ready to run;
** and the machine's steal time (/proc/stat): how long the hypervisor ran something else
** on this machine's CPUs, when a thread that was running on one stopped without knowing.
** Prints one JSON object.
**
** --trace FILE (for Benchmarks/web-load/stall_trace.py, not the judged runs) also writes
** every input's send time and latency, and what a thread pinned to each CPU saw waking
** every 2 ms (watch_cpu), so that slow inputs can be set beside the moments the machine
** itself stopped.
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <pthread.h>

#include "fusionkit.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void die(const char *what) {
    fprintf(stderr, "web_load: %s: %s\n", what, strerror(errno));
    exit(1);
}

static long rss_kib(int pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *file = fopen(path, "r");
    if (!file) die("reading the server's /proc status");
    long kib = -1;
    while (fgets(line, sizeof line, file))
        if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    fclose(file);
    return kib;
}

/* What the scheduler says of a process's threads (/proc/PID/task/TID/schedstat, summed):
 * the CPU time they ran, and the time they waited on a run queue, ready but with no CPU
 * free (what makes a tail on two cores). Nanoseconds, since each thread started. */
typedef struct { double cpu_ns, waited_ns; } sched_totals;

static sched_totals sched_of(int pid) {
    sched_totals totals = {0, 0};
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks) return totals;
    struct dirent *task;
    while ((task = readdir(tasks))) {
        if (task->d_name[0] == '.') continue;
        char file[320];
        snprintf(file, sizeof file, "/proc/%d/task/%s/schedstat", pid, task->d_name);
        FILE *stat = fopen(file, "r");
        if (!stat) continue;  /* a thread that ended meanwhile */
        double cpu = 0, waited = 0;
        if (fscanf(stat, "%lf %lf", &cpu, &waited) == 2) {
            totals.cpu_ns += cpu;
            totals.waited_ns += waited;
        }
        fclose(stat);
    }
    closedir(tasks);
    return totals;
}

/* Each CPU's steal counter (/proc/stat, the eighth figure of a "cpuN" line), in ms: time
 * the hypervisor gave this machine's CPU to someone else. At most `capacity` CPUs; returns
 * how many were read. The kernel counts it in clock ticks (10 ms here), at its own ticks. */
static int steal_per_cpu(double *ms, int capacity) {
    FILE *file = fopen("/proc/stat", "r");
    if (!file) return 0;
    static long ticks_per_second;
    if (!ticks_per_second) ticks_per_second = sysconf(_SC_CLK_TCK);
    char line[512];
    int cpus = 0;
    while (fgets(line, sizeof line, file) && cpus < capacity) {
        if (strncmp(line, "cpu", 3) != 0) break;
        if (line[3] == ' ') continue;  /* the sum of all */
        unsigned long long v[8] = {0};
        if (sscanf(line + 3, "%*d %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7]) == 8)
            ms[cpus++] = (double)v[7] * 1000.0 / (double)ticks_per_second;
    }
    fclose(file);
    return cpus;
}

static double steal_total_ms(void) {
    double ms[256];
    int cpus = steal_per_cpu(ms, 256);
    double total = 0;
    for (int i = 0; i < cpus; i++) total += ms[i];
    return total;
}

/* --trace: a thread pinned to each CPU wakes every 2 ms and notes how late it woke, how
 * much of that it spent ready on the run queue (its /proc schedstat), and the CPUs' steal
 * counters. Late with no wait on the run queue: the CPU itself did not run (the hypervisor
 * had it), not a thread of this machine that held it. */
#define TRACE_CPUS 16
typedef struct {
    double due, woke, queued;  /* ms; queued: its run-queue wait since the sample before */
    double steal[TRACE_CPUS];
} clock_sample;

typedef struct {
    int cpu, cpus;
    clock_sample *samples;
    size_t count, capacity;
    volatile int *stop;
} cpu_clock;

static double own_run_queue_ms(void) {
    FILE *file = fopen("/proc/thread-self/schedstat", "r");
    double cpu = 0, waited = 0;
    if (file) {
        if (fscanf(file, "%lf %lf", &cpu, &waited) != 2) waited = 0;
        fclose(file);
    }
    return waited / 1e6;
}

static void *watch_cpu(void *argument) {
    cpu_clock *clock = argument;
    cpu_set_t only;
    CPU_ZERO(&only);
    CPU_SET(clock->cpu, &only);
    pthread_setaffinity_np(pthread_self(), sizeof only, &only);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    double queued_before = own_run_queue_ms();
    while (!*clock->stop && clock->count < clock->capacity) {
        next.tv_nsec += 2000000;
        if (next.tv_nsec >= 1000000000) { next.tv_sec++; next.tv_nsec -= 1000000000; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        clock_sample *sample = &clock->samples[clock->count];
        sample->woke = now_ms();
        sample->due = next.tv_sec * 1e3 + next.tv_nsec / 1e6;
        double queued = own_run_queue_ms();
        sample->queued = queued - queued_before;
        queued_before = queued;
        clock->cpus = steal_per_cpu(sample->steal, TRACE_CPUS);
        clock->count++;
    }
    return NULL;
}

/* ---- WebSocket, client side (RFC 6455): masked frames out, plain frames in ---- */

typedef struct {
    int fd;
    char *buffer;      /* bytes read and not yet parsed */
    size_t length, capacity;
    double sent_at;    /* when the input in flight was written; 0 when none */
    double ok_from;    /* the same, kept until its ok (the latency to the ok) */
    double next_at;    /* when the next input is due */
    int inputs_left;
    int waiting_ok;
} connection;

static void write_all(int fd, const void *data, size_t length) {
    const char *bytes = data;
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            die("write");
        }
        bytes += written;
        length -= (size_t)written;
    }
}

static void send_text(int fd, const char *text) {
    size_t length = strlen(text);
    unsigned char frame[14 + 1024];
    if (length > 1024) { fprintf(stderr, "web_load: message too long\n"); exit(1); }
    size_t header = 0;
    frame[header++] = 0x81;  /* FIN, text */
    if (length < 126) {
        frame[header++] = 0x80 | (unsigned char)length;
    } else {
        frame[header++] = 0x80 | 126;
        frame[header++] = (unsigned char)(length >> 8);
        frame[header++] = (unsigned char)length;
    }
    unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
    memcpy(frame + header, mask, 4);
    header += 4;
    for (size_t i = 0; i < length; i++) frame[header + i] = (unsigned char)text[i] ^ mask[i % 4];
    write_all(fd, frame, header + length);
}

/* Takes one whole text message out of the buffer into out (NUL-terminated); 0 if
** the buffer holds no whole frame yet. Control frames are skipped. */
static int take_message(connection *c, char *out, size_t out_capacity) {
    for (;;) {
        if (c->length < 2) return 0;
        unsigned char *b = (unsigned char *)c->buffer;
        int opcode = b[0] & 0x0f;
        uint64_t length = b[1] & 0x7f;
        size_t header = 2;
        if (length == 126) {
            if (c->length < 4) return 0;
            length = ((uint64_t)b[2] << 8) | b[3];
            header = 4;
        } else if (length == 127) {
            if (c->length < 10) return 0;
            length = 0;
            for (int i = 0; i < 8; i++) length = (length << 8) | b[2 + i];
            header = 10;
        }
        if (c->length < header + length) return 0;
        int is_text = opcode == 1;
        if (is_text) {
            size_t n = length < out_capacity - 1 ? (size_t)length : out_capacity - 1;
            memcpy(out, c->buffer + header, n);
            out[n] = 0;
        }
        memmove(c->buffer, c->buffer + header + length, c->length - header - length);
        c->length -= header + length;
        if (is_text) return 1;
    }
}

static int fill(connection *c) {
    if (c->capacity - c->length < 4096) {
        c->capacity = c->capacity * 2 + 8192;
        c->buffer = realloc(c->buffer, c->capacity);
    }
    ssize_t got = read(c->fd, c->buffer + c->length, c->capacity - c->length);
    if (got > 0) c->length += (size_t)got;
    return (int)got;
}

/* Blocks until the next whole message (the setup phase). */
static void read_message(connection *c, char *out, size_t out_capacity) {
    while (!take_message(c, out, out_capacity)) {
        int got = fill(c);
        if (got == 0) { fprintf(stderr, "web_load: the server closed a connection\n"); exit(1); }
        if (got < 0 && errno != EINTR) die("read");
    }
}

static void open_session(connection *c, int port) {
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) die("socket");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&address, sizeof address) != 0) die("connect");
    char request[256];
    int n = snprintf(request, sizeof request,
                     "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", port);
    write_all(c->fd, request, (size_t)n);
    /* The 101 response, up to its blank line; frames may follow in the same read. */
    for (;;) {
        if (fill(c) <= 0) die("reading the handshake");
        char *end = memmem(c->buffer, c->length, "\r\n\r\n", 4);
        if (!end) continue;
        if (strncmp(c->buffer, "HTTP/1.1 101", 12) != 0) { fprintf(stderr, "web_load: handshake refused\n"); exit(1); }
        size_t used = (size_t)(end + 4 - c->buffer);
        memmove(c->buffer, c->buffer + used, c->length - used);
        c->length -= used;
        break;
    }
    char message[4096];
    read_message(c, message, sizeof message);
    if (!strstr(message, "\"type\":\"welcome\"")) { fprintf(stderr, "web_load: no welcome: %s\n", message); exit(1); }
    send_text(c->fd, "{\"type\":\"create\",\"id\":0,\"feature\":\"counter\",\"key\":\"c\"}");
    do read_message(c, message, sizeof message); while (!strstr(message, "\"type\":\"created\""));
}

/* ---- statistics ---- */

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double *sorted, size_t count, double p) {
    if (count == 0) return 0;
    size_t index = (size_t)(p * (double)(count - 1) + 0.5);
    return sorted[index];
}

/* ---- the C ABI baseline ---- */

typedef fk_status (*create_fn)(const char *, size_t, const char *, size_t, fk_instance *);
typedef fk_status (*send_fn)(fk_instance, const char *, size_t);
typedef fk_status (*patch_fn)(fk_instance, uint64_t, char **, size_t *, uint64_t *);
typedef void (*free_fn)(void *);

static void abi_baseline(const char *path, int sessions, int inputs, double *latencies) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "web_load: %s\n", dlerror()); exit(1); }
    create_fn create = (create_fn)dlsym(library, "fk_create");
    send_fn send = (send_fn)dlsym(library, "fk_send");
    patch_fn patch = (patch_fn)dlsym(library, "fk_state_patch");
    free_fn release = (free_fn)dlsym(library, "fk_free");
    fk_instance *instances = calloc((size_t)sessions, sizeof *instances);
    uint64_t *versions = calloc((size_t)sessions, sizeof *versions);
    for (int i = 0; i < sessions; i++) {
        if (create("counter", FK_NUL_TERMINATED, NULL, 0, &instances[i]) != FK_OK) { fprintf(stderr, "web_load: fk_create\n"); exit(1); }
        char *json; /* the bridge's first read: the whole state, which starts the kept versions */
        patch(instances[i], UINT64_MAX, &json, NULL, &versions[i]);
        release(json);
    }
    size_t k = 0;
    for (int round = 0; round < inputs; round++) {
        for (int i = 0; i < sessions; i++) {
            double start = now_ms();
            char *json;
            if (send(instances[i], "\"increase\"", FK_NUL_TERMINATED) != FK_OK) { fprintf(stderr, "web_load: fk_send\n"); exit(1); }
            patch(instances[i], versions[i], &json, NULL, &versions[i]);
            release(json);
            latencies[k++] = now_ms() - start;
        }
    }
    free(instances);
    free(versions);
}

int main(int argc, char **argv) {
    int port = 0, server_pid = 0, sessions = 1000, inputs = 20, interval_ms = 500, seconds = 120, spin = 0;
    const char *library = NULL, *trace_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--server-pid")) server_pid = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sessions")) sessions = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--inputs")) inputs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--interval-ms")) interval_ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--library")) library = argv[i + 1];
        else if (!strcmp(argv[i], "--trace")) trace_path = argv[i + 1];
        else if (!strcmp(argv[i], "--wait") && (!strcmp(argv[i + 1], "spin") || !strcmp(argv[i + 1], "sleep"))) spin = !strcmp(argv[i + 1], "spin");
        else { fprintf(stderr, "web_load: unknown option %s\n", argv[i]); return 64; }
    }
    if (!port || !server_pid || !library || sessions < 2 || inputs < 1) {
        fprintf(stderr, "usage: web_load --port P --server-pid PID --library LIB [--sessions N] [--inputs K] [--interval-ms MS] [--seconds S] [--wait sleep|spin] [--trace FILE]\n");
        return 64;
    }
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }

    /* 1. Idle sessions and their memory. */
    connection *all = calloc((size_t)sessions, sizeof *all);
    long rss_before = rss_kib(server_pid), rss_half = 0;
    double setup_start = now_ms();
    for (int i = 0; i < sessions; i++) {
        if (i == sessions / 2) { usleep(300000); rss_half = rss_kib(server_pid); }
        open_session(&all[i], port);
    }
    double setup_ms = now_ms() - setup_start;
    usleep(300000);
    long rss_all = rss_kib(server_pid);
    double per_session = (double)(rss_all - rss_half) * 1024.0 / (double)(sessions - sessions / 2);

    /* 2. The load. */
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    sched_totals server_before = sched_of(server_pid), loader_before = sched_of(getpid());
    double steal_before = steal_total_ms();
    volatile int tracing_stop = 0;
    int traced_cpus = trace_path ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 0;
    if (traced_cpus > TRACE_CPUS) traced_cpus = TRACE_CPUS;
    cpu_clock clocks[TRACE_CPUS];
    pthread_t watchers[TRACE_CPUS];
    for (int i = 0; i < traced_cpus; i++) {
        clocks[i] = (cpu_clock){.cpu = i, .capacity = (size_t)seconds * 500 + 16, .stop = &tracing_stop};
        clocks[i].samples = calloc(clocks[i].capacity, sizeof *clocks[i].samples);
        if (!clocks[i].samples || pthread_create(&watchers[i], NULL, watch_cpu, &clocks[i]) != 0) die("starting a CPU's watcher");
    }
    double start = now_ms();
    for (int i = 0; i < sessions; i++) {
        connection *c = &all[i];
        fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, c->fd, &event) != 0) die("epoll_ctl");
        c->inputs_left = inputs;
        c->next_at = start + (double)interval_ms * i / sessions;
    }
    size_t total = (size_t)sessions * (size_t)inputs, done = 0, errors = 0;
    double *latencies = calloc(total, sizeof *latencies);
    double *ok_latencies = calloc(total, sizeof *ok_latencies);
    double *sent_times = calloc(total, sizeof *sent_times);  /* each latency's send, for --trace */
    size_t oks = 0;
    struct epoll_event events[256];
    char message[65536];
    double deadline = start + seconds * 1000.0;
    size_t outstanding = total;
    while (outstanding > 0 && now_ms() < deadline) {
        double t = now_ms(), soonest = deadline;
        for (int i = 0; i < sessions; i++) {
            connection *c = &all[i];
            if (c->inputs_left > 0 && !c->waiting_ok && c->sent_at == 0) {
                if (c->next_at <= t) {
                    c->sent_at = now_ms();
                    c->ok_from = c->sent_at;
                    c->waiting_ok = 1;
                    c->inputs_left--;
                    send_text(c->fd, "{\"type\":\"send\",\"instance\":\"c\",\"input\":\"increase\"}");
                    c->next_at += interval_ms;
                } else if (c->next_at < soonest) {
                    soonest = c->next_at;
                }
            }
        }
        // Sleep until the next send, to the microsecond (epoll_pwait2): epoll_wait counts
        // whole milliseconds, and a wait under one, 0, is a busy loop that takes a core
        // from the server measured (at 1,000 inputs/s, nearly always). --wait spin asks for it.
        double wait = spin ? 0 : soonest - now_ms();
        if (wait < 0) wait = 0;
        struct timespec timeout = {.tv_sec = (time_t)(wait / 1000), .tv_nsec = (long)(fmod(wait, 1000.0) * 1e6)};
        int ready = epoll_pwait2(epoll, events, 256, &timeout, NULL);
        for (int e = 0; e < ready; e++) {
            connection *c = events[e].data.ptr;
            while (fill(c) > 0) {}
            while (take_message(c, message, sizeof message)) {
                // The input's change: a patch, or the whole state where that costs less
                // (fk_state_patch decides; a Counter's state is always sent whole).
                if ((strstr(message, "\"type\":\"patch\"") || strstr(message, "\"type\":\"state\"")) && c->sent_at > 0) {
                    sent_times[done] = c->sent_at - start;
                    latencies[done++] = now_ms() - c->sent_at;
                    c->sent_at = 0;
                } else if (strstr(message, "\"type\":\"ok\"")) {
                    if (c->ok_from > 0) ok_latencies[oks++] = now_ms() - c->ok_from;
                    c->ok_from = 0;
                    c->waiting_ok = 0;
                    outstanding--;
                } else if (strstr(message, "\"type\":\"error\"")) {
                    errors++;
                    c->waiting_ok = 0;
                    c->sent_at = 0;
                    c->ok_from = 0;
                    outstanding--;
                }
            }
        }
    }
    double load_ms = now_ms() - start;
    sched_totals server_after = sched_of(server_pid), loader_after = sched_of(getpid());
    double steal_ms = steal_total_ms() - steal_before;
    if (trace_path) {
        tracing_stop = 1;
        for (int i = 0; i < traced_cpus; i++) pthread_join(watchers[i], NULL);
        FILE *out = fopen(trace_path, "w");
        if (!out) die("writing the trace");
        fprintf(out, "# web_load trace, ms since the load began: 'input SENT LATENCY'; "
                     "'clock CPU DUE WOKE RUN_QUEUE_WAIT STEAL_CPU0 STEAL_CPU1...'\n");
        for (size_t i = 0; i < done; i++) fprintf(out, "input %.4f %.4f\n", sent_times[i], latencies[i]);
        for (int i = 0; i < traced_cpus; i++)
            for (size_t k = 0; k < clocks[i].count; k++) {
                clock_sample *sample = &clocks[i].samples[k];
                fprintf(out, "clock %d %.4f %.4f %.4f", i, sample->due - start, sample->woke - start, sample->queued);
                for (int c = 0; c < clocks[i].cpus; c++) fprintf(out, " %.0f", sample->steal[c]);
                fputc('\n', out);
            }
        fclose(out);
    }
    long rss_loaded = rss_kib(server_pid);
    for (int i = 0; i < sessions; i++) close(all[i].fd);
    qsort(latencies, done, sizeof *latencies, compare);
    qsort(ok_latencies, oks, sizeof *ok_latencies, compare);

    /* 3. The same inputs through the C ABI. */
    double *abi = calloc(total, sizeof *abi);
    abi_baseline(library, sessions, inputs, abi);
    qsort(abi, total, sizeof *abi, compare);

    printf("{\"sessions\":%d,\"inputsPerSession\":%d,\"intervalMs\":%d,\"inputs\":%zu,\"answered\":%zu,\"errors\":%zu,"
           "\"setupMs\":%.1f,\"loadMs\":%.1f,\"inputsPerSecond\":%.0f,"
           "\"webP50Ms\":%.4f,\"webP99Ms\":%.4f,\"webMaxMs\":%.4f,\"okP50Ms\":%.4f,\"okP99Ms\":%.4f,\"abiP50Ms\":%.5f,\"abiP99Ms\":%.5f,"
           "\"rssBeforeKiB\":%ld,\"rssHalfKiB\":%ld,\"rssAllKiB\":%ld,\"rssLoadedKiB\":%ld,\"idleSessionBytes\":%.0f,"
           "\"serverCpuMs\":%.1f,\"serverWaitedMs\":%.1f,\"loaderCpuMs\":%.1f,\"loaderWaitedMs\":%.1f,\"stealMs\":%.0f}\n",
           sessions, inputs, interval_ms, total, done, errors, setup_ms, load_ms, done / (load_ms / 1000.0),
           percentile(latencies, done, 0.50), percentile(latencies, done, 0.99), done ? latencies[done - 1] : 0,
           percentile(ok_latencies, oks, 0.50), percentile(ok_latencies, oks, 0.99),
           percentile(abi, total, 0.50), percentile(abi, total, 0.99),
           rss_before, rss_half, rss_all, rss_loaded, per_session,
           (server_after.cpu_ns - server_before.cpu_ns) / 1e6, (server_after.waited_ns - server_before.waited_ns) / 1e6,
           (loader_after.cpu_ns - loader_before.cpu_ns) / 1e6, (loader_after.waited_ns - loader_before.waited_ns) / 1e6,
           steal_ms);
    return done == total && errors == 0 ? 0 : 2;
}
