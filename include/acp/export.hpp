// SPDX-License-Identifier: Apache-2.0
// acp/export.hpp — symbol visibility for the shared library.
// The library is built with hidden visibility; ACP_EXPORT marks the public API.
#pragma once

#if defined(ACP_STATIC_DEFINE)
#define ACP_EXPORT
#elif defined(_WIN32)
#if defined(ACP_BUILDING_LIBRARY)
#define ACP_EXPORT __declspec(dllexport)
#else
#define ACP_EXPORT __declspec(dllimport)
#endif
#else
#define ACP_EXPORT __attribute__((visibility("default")))
#endif

// ACP_EXPORT for a class that is also [[nodiscard]]: GCC does not parse a GNU
// __attribute__ before a standard [[attribute]] in a class head, so both go in one list.
#if defined(ACP_STATIC_DEFINE)
#define ACP_NODISCARD_EXPORT [[nodiscard]]
#elif defined(_WIN32) && defined(__GNUC__)
// mingw-w64: __declspec is a GNU __attribute__ there, so the same rule applies.
#if defined(ACP_BUILDING_LIBRARY)
#define ACP_NODISCARD_EXPORT [[nodiscard, gnu::dllexport]]
#else
#define ACP_NODISCARD_EXPORT [[nodiscard, gnu::dllimport]]
#endif
#elif defined(_WIN32)
#define ACP_NODISCARD_EXPORT [[nodiscard]] ACP_EXPORT
#else
#define ACP_NODISCARD_EXPORT [[nodiscard, gnu::visibility("default")]]
#endif
