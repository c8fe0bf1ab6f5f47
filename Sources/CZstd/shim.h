#ifndef FERRY_CZSTD_SHIM_H
#define FERRY_CZSTD_SHIM_H

#include <zstd.h>

#endif
