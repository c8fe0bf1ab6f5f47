#ifndef FERRY_CLIBCSV_SHIM_H
#define FERRY_CLIBCSV_SHIM_H

#include <csv.h>

/// libcsv's space test when trimming is off: no byte is a space, so spaces around fields are kept.
/// Defined in C so that libcsv calls it directly, without a Swift thunk.
static inline int ferry_csv_no_space(unsigned char c) {
    (void)c;
    return 0;
}

#endif
