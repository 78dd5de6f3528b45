#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Neovim plugin's build step (scripts/nvim-build.sh) where acp-chat's libraries are
# absent: pkg-config sees every .pc file of this machine but libedit's and md4c's. The
# configure must leave acp-chat out with a message and succeed, and the build must make
# libacp.so, acp_cdef.h and the demo agent. The build dir sits beside the test's own build
# dir with its flags, so ccache serves the objects that build already compiled.
# Usage: nvim_build_test.sh SOURCE_DIR BUILD_DIR [-DCMAKE_OPTION=...]...
set -u
source=$1 build=$2
shift 2
scratch=$build.pkgconfig
rm -rf "$scratch" && mkdir -p "$scratch"
for dir in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
    [ -d "$dir" ] || continue
    for pc in "$dir"/*.pc; do
        [ -e "$pc" ] || continue
        case ${pc##*/} in libedit.pc|md4c.pc) ;; *) [ -e "$scratch/${pc##*/}" ] || ln -s "$pc" "$scratch/" ;; esac
    done
done
if PKG_CONFIG_LIBDIR=$scratch pkg-config --exists libedit || PKG_CONFIG_LIBDIR=$scratch pkg-config --exists md4c; then
    echo "FAIL  libedit or md4c still visible to pkg-config"; exit 1
fi
# A fresh configure (pkg-config's results are cached), over the objects of the last run.
rm -f "$build/CMakeCache.txt"
status=0
log=$build.log
PKG_CONFIG_LIBDIR=$scratch PKG_CONFIG_PATH= sh "$source/scripts/nvim-build.sh" "$build" "$@" >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then cat "$log"; echo "FAIL  scripts/nvim-build.sh exited $rc"; exit 1; fi
echo "ok    scripts/nvim-build.sh without libedit and md4c"
if grep -q "acp-chat is not built" "$log"; then echo "ok    the configure says acp-chat is left out"
else echo "FAIL  no message that acp-chat is left out"; status=1; fi
for file in libacp.so generated/acp/acp_cdef.h samples/acp-demo-agent; do
    if [ -s "$build/$file" ]; then echo "ok    $file built"; else echo "FAIL  $file missing"; status=1; fi
done
if [ -e "$build/samples/acp-chat" ]; then echo "FAIL  acp-chat was built"; status=1; fi
exit $status
