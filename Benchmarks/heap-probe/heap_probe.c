#include "heap_probe.h"
#include <stdlib.h> /* defines __GLIBC__ on glibc systems */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
size_t heap_probe_bytes_in_use(void) { return mallinfo2().uordblks; }
#else
size_t heap_probe_bytes_in_use(void) { return 0; }
#endif
