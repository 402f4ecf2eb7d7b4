/* Atomic operations on plain 64-bit words, for FusionABI's handle table: the one place
 * the library needs atomics, without linking Swift's Synchronization module (which
 * would be one more library to load at start). Internal: not part of fusionkit.h. */
#ifndef FUSION_ATOMICS_H
#define FUSION_ATOMICS_H

#include <stdbool.h>
#include <stdint.h>

static inline uint64_t fusion_atomic_load_acquire(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void fusion_atomic_store_release(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/* On failure, *expected is set to the value found. */
static inline bool fusion_atomic_compare_exchange(uint64_t *word, uint64_t *expected, uint64_t desired) {
    return __atomic_compare_exchange_n(word, expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Returns the value before. */
static inline uint64_t fusion_atomic_fetch_add(uint64_t *word, uint64_t value) {
    return __atomic_fetch_add(word, value, __ATOMIC_ACQ_REL);
}

static inline uint64_t fusion_atomic_fetch_and(uint64_t *word, uint64_t mask) {
    return __atomic_fetch_and(word, mask, __ATOMIC_ACQ_REL);
}

static inline void *fusion_atomic_load_pointer_acquire(void *const *pointer) {
    return __atomic_load_n(pointer, __ATOMIC_ACQUIRE);
}

static inline void fusion_atomic_store_pointer_release(void **pointer, void *value) {
    __atomic_store_n(pointer, value, __ATOMIC_RELEASE);
}

#endif
