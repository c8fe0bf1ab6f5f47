#ifndef FERRY_CLIBCSV_SHIM_H
#define FERRY_CLIBCSV_SHIM_H

#include <csv.h>

/// libcsv's space test when trimming is off: no byte is a space, so spaces around fields are kept.
///
/// libcsv calls it for every byte of an unquoted field. Swift builds C with frame pointers, which made this
/// function five instructions instead of two, which showed in `ferry count`'s profile; on the
/// two architectures Ferry runs on it is therefore written as a naked two-instruction function.
#if defined(__x86_64__)
__attribute__((naked)) static int ferry_csv_no_space(unsigned char c) {
    __asm__ volatile("xorl %eax, %eax\n\tret");
}
#elif defined(__aarch64__)
__attribute__((naked)) static int ferry_csv_no_space(unsigned char c) {
    __asm__ volatile("mov w0, #0\n\tret");
}
#else
static inline int ferry_csv_no_space(unsigned char c) {
    (void)c;
    return 0;
}
#endif

#endif
