#define _GNU_SOURCE
#include "file_sync.h"

#include <errno.h>
#include <unistd.h>

int fusion_sync_filesystem(int descriptor) {
#ifdef __linux__
    return syncfs(descriptor);
#else
    (void)descriptor;
    errno = ENOSYS;
    return -1;
#endif
}
