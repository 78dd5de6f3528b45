# SPDX-License-Identifier: Apache-2.0
# Cross-compiling libacp for 64-bit Windows with Debian's mingw-w64 (g++-mingw-w64-x86-64-posix:
# the posix thread model, which std::thread and std::mutex need). scripts/test-windows.sh uses it:
#
#   cmake -S . -B build/windows -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake \
#       -DCMAKE_PREFIX_PATH=/path/to/cross-built/libuv
#
# Programs run through wine when it is installed, so CTest runs the cross-built tests.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(ACP_MINGW_TRIPLE x86_64-w64-mingw32)

set(CMAKE_C_COMPILER ${ACP_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${ACP_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${ACP_MINGW_TRIPLE}-windres)

# Libraries and headers from the mingw sysroot and the prefixes given (the cross-built libuv);
# header-only packages (RapidJSON, doctest) from the build machine's /usr.
set(CMAKE_FIND_ROOT_PATH /usr/${ACP_MINGW_TRIPLE} ${CMAKE_PREFIX_PATH})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# No libgcc/libstdc++/libwinpthread DLLs to ship beside each program: wine (and a user) finds
# a self-contained .exe.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")

# Debian puts wine64 in /usr/lib/wine, off the PATH, when only wine64 is installed.
find_program(ACP_WINE NAMES wine wine64 PATHS /usr/lib/wine)
if(ACP_WINE)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${ACP_WINE})
endif()
