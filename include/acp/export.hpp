// SPDX-License-Identifier: Apache-2.0
// acp/export.hpp — symbol visibility for the shared library.
// The library is built with hidden visibility; ACP_EXPORT marks the public API.
// Windows: the DLL carries the C API of acp.h only (as libacp.so does, through its version
// script), so the C++ API is never dllexport/dllimport there: C++ users link the static
// library.
#pragma once

#if defined(ACP_STATIC_DEFINE) || defined(_WIN32)
#define ACP_EXPORT
#else
#define ACP_EXPORT __attribute__((visibility("default")))
#endif

// ACP_EXPORT for a class that is also [[nodiscard]]: GCC does not parse a GNU
// __attribute__ before a standard [[attribute]] in a class head, so both go in one list.
#if defined(ACP_STATIC_DEFINE) || defined(_WIN32)
#define ACP_NODISCARD_EXPORT [[nodiscard]]
#else
#define ACP_NODISCARD_EXPORT [[nodiscard, gnu::visibility("default")]]
#endif
