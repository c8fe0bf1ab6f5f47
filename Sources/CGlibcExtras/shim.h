#ifndef FERRY_CGLIBCEXTRAS_SHIM_H
#define FERRY_CGLIBCEXTRAS_SHIM_H

// glibc functions that Swift's Glibc module leaves out: malloc.h's tuning, and GNU extensions it declares only under
// _GNU_SOURCE.

#include <malloc.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Caps the number of glibc malloc arenas (`mallopt(M_ARENA_MAX, count)`); returns 1 on success. It must run before
/// threads start contending for the heap: arenas made before it stay.
static inline int ferry_malloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

/// Fixes the size from which glibc's malloc maps a block of its own, returned to the system when freed
/// (`mallopt(M_MMAP_THRESHOLD, bytes)`); returns 1 on success. Left alone, glibc raises that size to the size of each
/// mapped block freed (up to 32 MiB), and blocks below it then come from the heap, where freed ones leave holes.
static inline int ferry_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

/// Starts writing the file's dirty pages in `[offset, offset + count)` to the disk without waiting for them
/// (`sync_file_range(descriptor, offset, count, SYNC_FILE_RANGE_WRITE)`, Linux); returns 0 on success, or -1 with
/// `errno` set (for a pipe, say). It makes no promise of durability: an `fsync` still follows.
static inline int ferry_start_writeback(int descriptor, int64_t offset, int64_t count) {
    // SYNC_FILE_RANGE_WRITE is 2 in every Linux ABI; the call goes through syscall() because glibc declares
    // sync_file_range only under _GNU_SOURCE.
    return (int)syscall(SYS_sync_file_range, descriptor, offset, count, 2);
}

#endif
