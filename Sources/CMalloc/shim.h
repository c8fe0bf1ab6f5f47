#ifndef FERRY_CMALLOC_SHIM_H
#define FERRY_CMALLOC_SHIM_H

#include <malloc.h>

/// Caps the number of glibc malloc arenas (`mallopt(M_ARENA_MAX, count)`); returns 1 on success. It must run before
/// threads start contending for the heap: arenas made before it stay. glibc's malloc.h is not part of Swift's
/// Glibc module.
static inline int ferry_malloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

#endif
