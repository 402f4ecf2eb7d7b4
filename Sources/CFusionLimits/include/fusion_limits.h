/* The values behind fk_limit(), shared by FusionKit and FusionABI.
 *
 * C11 atomics rather than a Swift lock: the length and depth limits are read on every
 * fk_send, and the core links neither Foundation nor Synchronization. The storage is
 * in limits.c (one copy per library that links FusionKit, so limits are per library);
 * hidden, so that nothing but the fk_ functions is exported. */
#ifndef FUSION_LIMITS_H
#define FUSION_LIMITS_H

#include <stdint.h>

#define FUSION_LIMIT_COUNT 5

/* Defaults and hard maxima, by id (FK_LIMIT_ in include/fusionkit.h documents each). */
#define FUSION_LIMIT_LENGTH_DEFAULT 16777216 /* 16 MiB; plain numbers, so that Swift imports them */
#define FUSION_LIMIT_LENGTH_MAX 1073741824 /* 1 GiB */
#define FUSION_LIMIT_DEPTH_DEFAULT 512
#define FUSION_LIMIT_DEPTH_MAX 512
#define FUSION_LIMIT_SUBSCRIBERS_DEFAULT 1024
#define FUSION_LIMIT_SUBSCRIBERS_MAX 1048576
#define FUSION_LIMIT_HOST_REQUESTS_DEFAULT 1024
#define FUSION_LIMIT_HOST_REQUESTS_MAX 1048576
#define FUSION_LIMIT_INSTANCES_DEFAULT 100000
#define FUSION_LIMIT_INSTANCES_MAX 16777216

/* The limit's value; 0 for an id out of range (callers check the range first). */
__attribute__((visibility("hidden"))) int64_t fusion_limit_get(int32_t id);
/* Sets it and returns the old value. */
__attribute__((visibility("hidden"))) int64_t fusion_limit_exchange(int32_t id, int64_t value);
/* Counts one more live instance unless `limit` are live already: returns the count
 * before, and counts nothing when that count is at or above the limit. */
__attribute__((visibility("hidden"))) int64_t fusion_instances_reserve(int64_t limit);
/* One live instance fewer (destroyed, or a reservation given back). */
__attribute__((visibility("hidden"))) void fusion_instances_release(void);

/* How many threads hold a last-error message (FusionABI's LastError), moved by +1 or -1:
 * a success on a thread that holds none, the common case, need not look up its
 * thread-specific slot. */
__attribute__((visibility("hidden"))) void fusion_last_error_holders_add(int64_t change);
/* Whether any thread may hold one (a thread always sees its own changes). */
__attribute__((visibility("hidden"))) int fusion_last_error_held(void);

#endif
