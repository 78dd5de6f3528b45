# SPDX-License-Identifier: Apache-2.0
# libacp.dll's export table (objdump -p) must name exactly the functions acp.h declares, as
# tests/capi/check_exports.cmake checks of libacp.so: nothing of the C++ API, libstdc++,
# libuv or RapidJSON leaks out, nothing acp.h promises is missing.
# Run with -DOBJDUMP=... -DLIBRARY=... -DHEADER=...
execute_process(COMMAND "${OBJDUMP}" -p "${LIBRARY}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${OBJDUMP} -p failed: ${err}")
endif()
# The name pointer table: "\t[ n] name" lines after "[Ordinal/Name Pointer] Table".
string(FIND "${out}" "[Ordinal/Name Pointer] Table" start)
if(start EQUAL -1)
    message(FATAL_ERROR "${LIBRARY} has no export name table")
endif()
string(SUBSTRING "${out}" ${start} -1 table)
string(REPLACE "\n" ";" lines "${table}")
set(exported "")
foreach(line IN LISTS lines)
    if(line MATCHES "^\t\\[ *[0-9]+\\] (.+)$")
        set(symbol "${CMAKE_MATCH_1}")
        if(NOT symbol MATCHES "^acp_")
            message(FATAL_ERROR "libacp.dll exports a symbol outside the C API: ${symbol}")
        endif()
        list(APPEND exported "${symbol}")
    elseif(exported AND line STREQUAL "")
        break()
    endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/../capi/exports_match_header.cmake)
acp_exports_match_header(libacp.dll "${exported}" "${HEADER}")
