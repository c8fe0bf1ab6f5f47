#ifndef FERRY_CSQLITE3_SHIM_H
#define FERRY_CSQLITE3_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type ferry_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Turns off SQLite's memory statistics, which take a global mutex around every allocation; Ferry never reads
/// them. `sqlite3_config` is variadic, which Swift cannot call. It works only before SQLite initializes (the
/// first open); later it returns `SQLITE_MISUSE` and changes nothing.
static inline int ferry_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
