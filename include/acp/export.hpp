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
