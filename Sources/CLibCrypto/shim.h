#ifndef FERRY_CLIBCRYPTO_SHIM_H
#define FERRY_CLIBCRYPTO_SHIM_H

// OpenSSL 3 marks the one-shot digest structs deprecated in favour of EVP, whose context lives on the heap; the
// plain SHA256_CTX is a value Swift can copy and keep inline, and is as fast (the same SHA-NI/AVX code).
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

#endif
