#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cross-builds libacp for Windows with Debian's mingw-w64 and runs its tests under wine
# (issue 31). Installs the cross tools and wine when missing (root), builds libuv from
# Debian's source once into a cache under build/, then configures, builds and tests.
#
#   scripts/test-windows.sh              install, build, test
#   scripts/test-windows.sh --install    only install the cross tools and wine
#   scripts/test-windows.sh --deps       also build libuv, nothing more
#   scripts/test-windows.sh --build      also configure and build, no test
#   scripts/test-windows.sh --test       only the tests, of a build made before
#   ACP_WINDOWS_BUILD=dir                the build directory (default build/windows)
#   ACP_WINDOWS_CMAKE_ARGS="..."         more configure arguments, e.g. a compiler launcher:
#       "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache", or
#       "-DCMAKE_CXX_FLAGS_DEBUG=-g" for debug information
#
# The build is unoptimised and has no debug information (-O0): it compiles in well under
# half the time of -O2 -g (measured on the protocol codecs), which the CI's hour needs;
# the tests under wine need neither.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

triple=x86_64-w64-mingw32
build=${ACP_WINDOWS_BUILD:-build/windows}
cache=$root/build/windows-deps

install_tools() {
    local packages=(g++-mingw-w64-x86-64-posix wine64 dpkg-dev cmake ninja-build rapidjson-dev doctest-dev)
    local missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    # libuv's source comes from Debian: apt-get source needs a deb-src entry.
    if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        [ "$(id -u)" = 0 ] || { echo "test-windows.sh: no deb-src entry and not root" >&2; exit 1; }
        local suite
        suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$suite" >/etc/apt/sources.list.d/acp-deb-src.sources
        missing+=(update)
    fi
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || { echo "test-windows.sh: missing ${missing[*]}; run as root" >&2; exit 1; }
    apt-get update -qq
    local install=()
    for package in "${missing[@]}"; do [ "$package" = update ] || install+=("$package"); done
    [ ${#install[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${install[@]}"
}

uv_prefix=$cache/libuv

build_deps() {
    # libuv from Debian's source (the version Debian ships for Linux), cross-built once as a
    # static library; libuv.pc is made to name it, so the build finds no uv.dll to depend on.
    if [ ! -f "$uv_prefix/lib/pkgconfig/libuv.pc" ]; then
        rm -rf "$cache/src"
        mkdir -p "$cache/src"
        (cd "$cache/src" && apt-get source -qq libuv1 >/dev/null)
        uv_source=$(find "$cache/src" -maxdepth 1 -type d -name 'libuv1-*' | head -n 1)
        cmake -S "$uv_source" -B "$cache/libuv-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$triple.cmake" -DCMAKE_INSTALL_PREFIX="$uv_prefix" \
            -DLIBUV_BUILD_TESTS=OFF -DLIBUV_BUILD_BENCH=OFF >/dev/null
        # Only the static library (half the compiling), put in place by hand.
        cmake --build "$cache/libuv-build" -j "$(nproc)" --target uv_a
        mkdir -p "$uv_prefix/lib/pkgconfig"
        cp -r "$uv_source/include" "$uv_prefix/"
        cp "$cache/libuv-build/libuv_a.a" "$uv_prefix/lib/"
        sed 's/^Name: libuv-static/Name: libuv/' "$cache/libuv-build/libuv-static.pc" >"$uv_prefix/lib/pkgconfig/libuv.pc"
    fi
    # RapidJSON and doctest are header-only: Debian's /usr/include copies serve, but from a
    # folder of their own, as -isystem /usr/include would put glibc's headers before mingw's.
    mkdir -p "$cache/headers"
    ln -sfn /usr/include/rapidjson "$cache/headers/rapidjson"
    ln -sfn /usr/include/doctest "$cache/headers/doctest"
}

build_tree() {
    # pkg-config looks only at the cross-built prefix, never at the build machine's libraries.
    export PKG_CONFIG_LIBDIR=$uv_prefix/lib/pkgconfig
    export PKG_CONFIG_PATH=
    local extra_args
    read -r -a extra_args <<<"${ACP_WINDOWS_CMAKE_ARGS:-}"
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
        -DACP_WARNINGS_AS_ERRORS=ON \
        -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$triple.cmake" -DCMAKE_PREFIX_PATH="$uv_prefix" \
        -DRAPIDJSON_INCLUDE_DIR="$cache/headers" -DACP_DOCTEST_INCLUDE_DIR="$cache/headers" \
        -DACP_WITH_REMOTE=OFF -DACP_WITH_HTTP_TOOLS=OFF "${extra_args[@]}" >/dev/null
    cmake --build "$build" -j "$(nproc)"
}

run_tests() {
    [ -f "$build/CTestTestfile.cmake" ] || { echo "test-windows.sh: no build in $build (run --build first)" >&2; exit 1; }
    # Wine: one prefix per run, made once before the tests (wineboot), and one wineserver
    # kept running across them (-p), so each test pays only for starting its process.
    # Headless: no display, no debug chatter on stderr.
    wine=$(command -v wine || command -v wine64 || echo /usr/lib/wine/wine64)
    wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver64)
    export WINEPREFIX
    WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/acp-wine.XXXXXX")
    export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
    cleanup() {
        "$wineserver" -k >/dev/null 2>&1 || true
        rm -rf "$WINEPREFIX"
    }
    trap cleanup EXIT
    "$wineserver" -p
    "$wine" wineboot --init >/dev/null 2>&1
    ctest --test-dir "$build" -j "$(nproc)" --output-on-failure --timeout 300
}

# One step after another (not &&: set -e does not stop a function called in an && list).
case ${1:-} in
    --install) install_tools ;;
    --deps) install_tools; build_deps ;;
    --build) install_tools; build_deps; build_tree ;;
    --test) run_tests ;;
    "") install_tools; build_deps; build_tree; run_tests ;;
    *) echo "usage: $0 [--install|--deps|--build|--test]" >&2; exit 2 ;;
esac
