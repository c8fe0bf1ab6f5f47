#ifndef FERRY_CMALLOC_SHIM_H
#define FERRY_CMALLOC_SHIM_H

#include <malloc.h>

/// Caps the number of glibc malloc arenas (`mallopt(M_ARENA_MAX, count)`); returns 1 on success. It must run before
/// threads start contending for the heap: arenas made before it stay. glibc's malloc.h is not part of Swift's
/// Glibc module.
static inline int ferry_malloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

/// Fixes the size from which glibc's malloc maps a block of its own, returned to the system when freed
/// (`mallopt(M_MMAP_THRESHOLD, bytes)`); returns 1 on success. Left alone, glibc raises that size to the size of each
/// mapped block freed (up to 32 MiB), and blocks below it then come from the heap, where freed ones leave holes.
static inline int ferry_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

#endif
