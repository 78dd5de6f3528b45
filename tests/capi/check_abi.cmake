# SPDX-License-Identifier: Apache-2.0
# libacp.so's C ABI must be compatible with the stored baseline (abi/libacp.abixml,
# docs/abi.md): added functions pass; a removed or changed function, a changed enum value
# or struct layout fails (an options struct may grow at its end: abi/suppressions.abignore).
# Run with -DABIDIFF=... -DLIBRARY=... -DSOURCE_DIR=...
if(NOT ABIDIFF)
    message(FATAL_ERROR "abidiff not found: install abigail-tools (scripts/install-deps.sh), then reconfigure")
endif()
# Without DWARF abidiff sees names only and would pass any change of a signature.
execute_process(COMMAND readelf -S "${LIBRARY}" OUTPUT_VARIABLE sections RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT sections MATCHES "\\.debug_info")
    message(FATAL_ERROR "${LIBRARY} has no debug information: check the ABI in a RelWithDebInfo or Debug build")
endif()
execute_process(
    COMMAND "${ABIDIFF}" --headers-dir2 "${SOURCE_DIR}/include/acp" --drop-private-types --exported-interfaces-only
        --suppressions "${SOURCE_DIR}/abi/suppressions.abignore" --no-added-syms
        "${SOURCE_DIR}/abi/libacp.abixml" "${LIBRARY}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# abidiff's status is a bit mask: 1 error, 2 usage, 4 an ABI change, 8 an incompatible one.
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "libacp.so is not ABI-compatible with abi/libacp.abixml (abidiff status ${rc}):\n${out}${err}\n"
        "A deliberate break needs a new soname; see docs/abi.md and scripts/update-abi-baseline.sh.")
endif()
message(STATUS "compatible with abi/libacp.abixml${out}")
