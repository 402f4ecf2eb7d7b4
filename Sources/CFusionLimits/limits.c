#include "fusion_limits.h"

#include <stdatomic.h>

static _Atomic int64_t values[FUSION_LIMIT_COUNT] = {
    FUSION_LIMIT_LENGTH_DEFAULT, FUSION_LIMIT_DEPTH_DEFAULT, FUSION_LIMIT_SUBSCRIBERS_DEFAULT,
    FUSION_LIMIT_HOST_REQUESTS_DEFAULT, FUSION_LIMIT_INSTANCES_DEFAULT,
};
static _Atomic int64_t live_instances = 0;
static _Atomic int64_t last_error_holders = 0;

void fusion_last_error_holders_add(int64_t change) {
    atomic_fetch_add_explicit(&last_error_holders, change, memory_order_relaxed);
}

int fusion_last_error_held(void) { return atomic_load_explicit(&last_error_holders, memory_order_relaxed) != 0; }

int64_t fusion_limit_get(int32_t id) {
    if (id < 0 || id >= FUSION_LIMIT_COUNT) return 0;
    return atomic_load_explicit(&values[id], memory_order_relaxed);
}

int64_t fusion_limit_exchange(int32_t id, int64_t value) {
    if (id < 0 || id >= FUSION_LIMIT_COUNT) return 0;
    return atomic_exchange_explicit(&values[id], value, memory_order_relaxed);
}

int64_t fusion_instances_reserve(int64_t limit) {
    int64_t live = atomic_load_explicit(&live_instances, memory_order_relaxed);
    while (live < limit) {
        if (atomic_compare_exchange_weak_explicit(&live_instances, &live, live + 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return live;
    }
    return live;
}

void fusion_instances_release(void) {
    atomic_fetch_sub_explicit(&live_instances, 1, memory_order_relaxed);
}
