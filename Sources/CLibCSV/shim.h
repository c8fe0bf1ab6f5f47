#ifndef FERRY_CLIBCSV_SHIM_H
#define FERRY_CLIBCSV_SHIM_H

#include <csv.h>

#endif
