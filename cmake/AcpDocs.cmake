# SPDX-License-Identifier: Apache-2.0
# The API reference from the public headers (docs/api/Doxyfile.in): `cmake --build build
# --target docs` writes build/docs/html/index.html. Two configurations, warnings as errors
# in both: the reference (acp.h and the main C++ headers; a doc comment Doxygen cannot
# read fails it) and the C API check (acp.h alone, where every declaration must also be
# documented). The test docs.api_reference runs both (tests/CMakeLists.txt).
find_program(ACP_DOXYGEN doxygen)
find_package(Python3 COMPONENTS Interpreter)
function(acp_doxyfile out output undocumented)
    list(TRANSFORM ARGN PREPEND "${PROJECT_SOURCE_DIR}/include/acp/" OUTPUT_VARIABLE input)
    list(JOIN input " " ACP_DOCS_INPUT)
    set(ACP_DOCS_OUTPUT ${output})
    set(ACP_DOCS_UNDOCUMENTED ${undocumented})
    configure_file(${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in ${out} @ONLY)
endfunction()
acp_doxyfile(${PROJECT_BINARY_DIR}/Doxyfile ${PROJECT_BINARY_DIR}/docs NO
    acp.h client.hpp client_v1.hpp turn.hpp session.hpp runtime.hpp status.hpp log.hpp traffic.hpp
    transport_options.hpp fs_guard.hpp catalogue.hpp tools.hpp unstable.hpp json.hpp error_codes.hpp)
acp_doxyfile(${PROJECT_BINARY_DIR}/Doxyfile-capi ${PROJECT_BINARY_DIR}/docs-capi YES acp.h)
if(ACP_DOXYGEN)
    add_custom_target(docs
        COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/docs
        COMMAND ${ACP_DOXYGEN} ${PROJECT_BINARY_DIR}/Doxyfile
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        COMMENT "Doxygen: the API reference in ${PROJECT_BINARY_DIR}/docs/html")
endif()
