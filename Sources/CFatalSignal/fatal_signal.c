#define _GNU_SOURCE
#include "fatal_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

static const int fatal_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV};
#define FATAL_SIGNALS (sizeof fatal_signals / sizeof fatal_signals[0])

/* Set once, before any handler is installed; only read by the handler. */
static struct sigaction previous[FATAL_SIGNALS];
static int null_descriptor = -1;
static long descriptor_limit = 1024;
static int installed = 0;

/* A socket is shut down (the peer hears it at once, whoever else holds the descriptor)
 * and its number given to /dev/null; anything else is left as it is. */
static void release(int descriptor) {
    struct stat status;
    if (descriptor <= 2 || descriptor == null_descriptor) return;
    if (fstat(descriptor, &status) != 0 || !S_ISSOCK(status.st_mode)) return;
    shutdown(descriptor, SHUT_RDWR);
    if (null_descriptor < 0 || dup2(null_descriptor, descriptor) < 0) close(descriptor);
}

static void release_all(void) {
#ifdef __linux__
    /* The open descriptors, from /proc with getdents64 (a system call, unlike readdir). */
    int folder = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder >= 0) {
        char buffer[4096] __attribute__((aligned(8)));
        for (;;) {
            long count = syscall(SYS_getdents64, folder, buffer, sizeof buffer);
            if (count <= 0) break;
            for (long offset = 0; offset < count;) {
                /* struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name. */
                unsigned short length;
                memcpy(&length, buffer + offset + 16, sizeof length);
                if (length == 0) break;
                const char *name = buffer + offset + 19;
                long descriptor = 0;
                int digits = 0;
                for (; *name >= '0' && *name <= '9' && digits < 10; name++, digits++) descriptor = descriptor * 10 + (*name - '0');
                if (digits > 0 && *name == '\0' && descriptor != folder) release((int)descriptor);
                offset += length;
            }
        }
        close(folder);
        return;
    }
#endif
    for (long descriptor = 3; descriptor < descriptor_limit; descriptor++) release((int)descriptor);
}

static void on_fatal_signal(int number, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    /* The handler that was there comes back first: a second fault, here or on another
     * thread, goes straight to it. */
    for (size_t index = 0; index < FATAL_SIGNALS; index++) {
        if (fatal_signals[index] == number) sigaction(number, &previous[index], NULL);
    }
    release_all();
    static const char said[] = "fusion: fatal signal: every socket closed (the sessions' locks go with them)\n";
    ssize_t ignored = write(STDERR_FILENO, said, sizeof said - 1);
    (void)ignored;
    errno = saved;
    /* A fault (SIGILL of a trap, SIGSEGV, SIGBUS, SIGFPE) happens again when the
     * instruction runs again on return, now in the previous handler with its own
     * context. A signal that was sent (abort, kill) or a breakpoint that would not come
     * again is raised: it is blocked until this returns, then delivered there. */
    if (info == NULL || info->si_code <= 0 || number == SIGTRAP || number == SIGABRT) raise(number);
}

int fusion_release_sockets_on_fatal_signal(void) {
    if (installed) return 0;
    installed = 1;
    null_descriptor = open("/dev/null", O_RDWR | O_CLOEXEC);
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        descriptor_limit = limit.rlim_cur > (1 << 20) ? (1 << 20) : (long)limit.rlim_cur;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < FATAL_SIGNALS; index++) {
        if (sigaction(fatal_signals[index], NULL, &previous[index]) != 0) return -1;
    }
    for (size_t index = 0; index < FATAL_SIGNALS; index++) {
        if (sigaction(fatal_signals[index], &action, NULL) != 0) return -1;
    }
    return 0;
}
