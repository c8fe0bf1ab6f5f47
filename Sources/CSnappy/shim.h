#ifndef FERRY_CSNAPPY_SHIM_H
#define FERRY_CSNAPPY_SHIM_H

#include <snappy-c.h>

#endif
