#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what building and testing libacp needs, from Debian's packages, when missing.
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

#   scripts/install-deps.sh          everything the tests need
#   scripts/install-deps.sh --build  only what building the library and samples needs
#   scripts/install-deps.sh --nvim   only what the Neovim plugin's build (scripts/nvim-build.sh)
#                                    needs: libacp for stdio agents and the demo agent
packages=(cmake g++ ninja-build pkg-config rapidjson-dev libuv1-dev)
if [ "${1:-}" != "--nvim" ]; then
    # acp-chat: line editing with history (libedit) and Markdown for the terminal (md4c).
    packages+=(libedit-dev libmd4c-dev)
    # Remote agents: Streamable HTTP on libcurl, WebSocket on libwebsockets and its libuv
    # event library (docs/remote.md).
    packages+=(libcurl4-openssl-dev libwebsockets-dev libwebsockets-evlib-uv)
    # Tools a host offers the agent over loopback HTTP: libmicrohttpd (lib/tools/http_carrier.hpp).
    packages+=(libmicrohttpd-dev)
    # Binary agents from the ACP registry are unpacked with libarchive (docs/agents.md).
    packages+=(libarchive-dev)
fi
if [ "${1:-}" != "--build" ] && [ "${1:-}" != "--nvim" ]; then
    packages+=(doctest-dev python3)
    # The FFI tests load the generated acp_cdef.h with LuaJIT and Python cffi.
    packages+=(luajit python3-cffi)
    # The host loop examples embed libacp in a GLib main loop and a Qt 6 event loop.
    packages+=(libglib2.0-dev qt6-base-dev)
    # The Neovim plugin's tests run it in Debian's Neovim (headless) and tmux.
    packages+=(neovim)
    # The wheel test installs the Python package into a fresh virtual environment.
    packages+=(python3-venv python3-pip)
    # The python.mypy test type-checks the Python package.
    packages+=(mypy)
    # scripts/fuzz.sh builds the libFuzzer targets with clang.
    packages+=(clang)
    # scripts/check-style.sh: the repository's .clang-format and .clang-tidy.
    packages+=(clang-format clang-tidy)
    # The remote transport tests make a throwaway TLS certificate.
    packages+=(openssl)
    # The package test checks the .debs with lintian (dpkg-shlibdeps computes their
    # dependencies); the docs target runs Doxygen; the ABI check runs abidiff.
    packages+=(lintian dpkg-dev doxygen abigail-tools)
    # Node.js and npm run the peer agent built on the official TypeScript SDK.
    command -v node >/dev/null 2>&1 || packages+=(nodejs)
    command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# Tools may come from elsewhere than Debian (the CI image's node does): trust the PATH.
filtered=()
for package in "${missing[@]}"; do
    case "$package" in
        cmake) command -v cmake >/dev/null 2>&1 || filtered+=("$package") ;;
        g++) command -v g++ >/dev/null 2>&1 || filtered+=("$package") ;;
        ninja-build) command -v ninja >/dev/null 2>&1 || filtered+=("$package") ;;
        pkg-config) command -v pkg-config >/dev/null 2>&1 || filtered+=("$package") ;;
        python3) command -v python3 >/dev/null 2>&1 || filtered+=("$package") ;;
        clang) command -v clang++ >/dev/null 2>&1 || filtered+=("$package") ;;
        *) filtered+=("$package") ;;
    esac
done
[ ${#filtered[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "libacp needs: ${filtered[*]}" >&2
    echo "install them with: sudo apt-get install ${filtered[*]}" >&2
    exit 1
fi
echo "installing: ${filtered[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${filtered[@]}" >/dev/null
