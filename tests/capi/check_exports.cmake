# SPDX-License-Identifier: Apache-2.0
# The dynamic symbols libacp.so defines (nm -D --defined-only) must be exactly the
# functions acp.h declares: nothing of the C++ API or its dependencies leaks out, and
# nothing the header promises is missing. Run with -DLIBRARY=... -DHEADER=...
execute_process(COMMAND nm -D --defined-only "${LIBRARY}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed: ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(exported "")
foreach(line IN LISTS lines)
    if(line STREQUAL "")
        continue()
    endif()
    string(REGEX REPLACE "^.* " "" symbol "${line}")
    if(NOT symbol MATCHES "^acp_")
        message(FATAL_ERROR "libacp.so exports a symbol outside the C API: ${symbol}")
    endif()
    list(APPEND exported "${symbol}")
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/exports_match_header.cmake)
acp_exports_match_header(libacp.so "${exported}" "${HEADER}")
