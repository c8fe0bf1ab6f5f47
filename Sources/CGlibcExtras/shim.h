#ifndef FERRY_CGLIBCEXTRAS_SHIM_H
#define FERRY_CGLIBCEXTRAS_SHIM_H

// glibc functions that Swift's Glibc module leaves out: malloc.h's tuning, a variadic one (prctl), and GNU extensions it
// declares only under _GNU_SOURCE.

#include <malloc.h>
#include <stdint.h>
#include <sys/prctl.h>
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

/// Names the calling thread, as `top -H`, `ps -L` and debuggers show it (`prctl(PR_SET_NAME, name)`; at most 15 bytes
/// are kept); returns 0 on success. `pthread_setname_np` does the same but is declared only under _GNU_SOURCE, and
/// `prctl` is variadic, which Swift cannot call.
static inline int ferry_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

#endif
