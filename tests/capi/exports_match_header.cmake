# SPDX-License-Identifier: Apache-2.0
# The half of the export checks that both platforms share (check_exports.cmake for
# libacp.so, tests/windows/check_dll_exports.cmake for libacp.dll): the exported names
# must be exactly the functions acp.h declares.
#
#   acp_exports_match_header(libacp.so "${exported}" "${HEADER}")
function(acp_exports_match_header library exported header_path)
    file(READ "${header_path}" header)
    string(REGEX MATCHALL "ACP_API [^;(]*[ *](acp_[a-z0-9_]+)\\(" declarations "${header}")
    set(declared "")
    foreach(declaration IN LISTS declarations)
        string(REGEX REPLACE ".*[ *](acp_[a-z0-9_]+)\\($" "\\1" name "${declaration}")
        list(APPEND declared "${name}")
    endforeach()

    list(SORT exported)
    list(SORT declared)
    if(NOT exported STREQUAL declared)
        set(missing ${declared})
        list(REMOVE_ITEM missing ${exported})
        set(extra ${exported})
        list(REMOVE_ITEM extra ${declared})
        message(FATAL_ERROR
            "acp.h and ${library} disagree. Declared, not exported: ${missing}. Exported, not declared: ${extra}")
    endif()
    list(LENGTH exported count)
    message(STATUS "${library} exports the ${count} functions of acp.h and nothing else")
endfunction()
