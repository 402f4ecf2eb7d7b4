/* The one disk-sync call that Swift's Glibc module does not show: syncfs(2) is a GNU
 * extension, declared only under _GNU_SOURCE. FusionHost's journal committer uses it
 * to flush the journals of many sessions with one call (docs/reliability.md, "Group
 * commit"). */
#ifndef FUSIONHOST_FILE_SYNC_H
#define FUSIONHOST_FILE_SYNC_H

/* Flushes every file of the filesystem that holds `descriptor` to the disk, waiting
 * until it is there (Linux syncfs). Returns 0, or -1 with errno set; on a system
 * without syncfs it returns -1 with errno ENOSYS, and the caller syncs file by file. */
int fusion_sync_filesystem(int descriptor);

#endif
