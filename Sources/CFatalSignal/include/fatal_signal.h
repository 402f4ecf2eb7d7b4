/* What a crashing bridge does before anything else (docs/deploy.md, "Poison inputs"):
 * let go of its sockets. A feature that traps kills the process, and Swift's runtime
 * then spends seconds printing every thread's stack; until the process is gone its
 * listening socket still takes connections, its tabs' sockets stay open, and its
 * database connections hold the sessions' locks, so no other bridge can take them over.
 * With this handler the take-over after a trap is as quick as after kill -9. */
#ifndef FUSIONWEB_FATAL_SIGNAL_H
#define FUSIONWEB_FATAL_SIGNAL_H

/* Installs, once per process, a handler for SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE and
 * SIGSEGV that shuts down every socket of the process above stdio (listening, clients',
 * the database's: the server sees the connection go and releases its locks at once),
 * leaves /dev/null in their place (so no descriptor opened meanwhile takes the number),
 * then hands the signal to the handler that was there before (Swift's backtracer, or the
 * default: a core dump) as if it had come straight to it. Async-signal-safe calls only.
 * Returns 0, or -1 when a handler could not be installed (errno says why). */
int fusion_release_sockets_on_fatal_signal(void);

#endif
