/*
 * wake_pipe.h: how a curses program hears of changes made on other threads. The
 * library calls back on its own threads, and curses is not thread-safe, so the
 * subscription callback (and the signal handlers) only write a byte to a pipe; the
 * main loop polls the pipe beside the terminal and redraws on its own thread.
 * Static, for one `cc` line: `#include "wake_pipe.h"` beside the program.
 */
#ifndef FUSIONKIT_EXAMPLES_WAKE_PIPE_H
#define FUSIONKIT_EXAMPLES_WAKE_PIPE_H

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include "fusionkit.h"

/* ---------------------------------------------------------------------------
** Waking the main thread: the callback and the signal handlers write to a pipe.
*/
static int wake_read = -1, wake_write = -1;
static atomic_bool wake_pending;          /* a byte is in the pipe, not yet read */
static volatile sig_atomic_t quit_signal; /* SIGINT, SIGTERM or SIGHUP arrived */

/* The subscription callback: on a library thread (or the main thread inside fk_send
** and fk_advance_clock). No curses here: a byte in the pipe, once per batch. */
static void on_change(void *user_data, fk_instance instance, uint64_t version) {
    (void)user_data; (void)instance; (void)version;
    if (!atomic_exchange(&wake_pending, true)) {
        ssize_t written;
        do written = write(wake_write, "c", 1); while (written < 0 && errno == EINTR);
        /* EAGAIN: the pipe is full, so the main loop wakes anyway. */
    }
}

static void on_signal(int signal_number) {
    (void)signal_number;
    int saved = errno;
    quit_signal = 1;
    ssize_t written = write(wake_write, "q", 1);
    (void)written;
    errno = saved;
}

static void drain_wakes(void) {
    char bytes[64];
    while (read(wake_read, bytes, sizeof bytes) > 0) {}
    atomic_store(&wake_pending, false); /* before reading the state: a later change writes again */
}

#endif
