#ifndef HEAP_PROBE_H
#define HEAP_PROBE_H
#include <stddef.h>

/* Bytes malloc has handed out and not taken back (glibc's mallinfo2().uordblks): a
** measure of memory that, unlike resident pages, repeats exactly from run to run.
** For fusion-bench's memory workload; 0 where glibc's mallinfo2 is not available. */
size_t heap_probe_bytes_in_use(void);

#endif
