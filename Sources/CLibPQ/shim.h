#ifndef FERRY_CLIBPQ_SHIM_H
#define FERRY_CLIBPQ_SHIM_H

// Debian's libpq-dev installs its headers in /usr/include/postgresql (pkg-config libpq says so).
#include <libpq-fe.h>

#endif
