# SPDX-License-Identifier: Apache-2.0
# Makes the Debian package with cpack, extracts it with dpkg-deb into a scratch root (no
# installation on this machine), checks that it holds what a user needs, then builds and
# runs the consumer project against the extracted usr/ through find_package and through
# pkg-config. Run by CTest with -DSOURCE_DIR, -DBUILD_DIR, -DWORK_DIR and -DCPACK.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
    endif()
    message(STATUS "${out}")
endfunction()

find_program(DPKG_DEB dpkg-deb)
if(NOT DPKG_DEB)
    message(FATAL_ERROR "dpkg-deb not found: this test needs Debian's dpkg")
endif()
run_step(${CPACK} -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${WORK_DIR}/package")
file(GLOB debs "${WORK_DIR}/package/*.deb")
list(LENGTH debs count)
if(NOT count EQUAL 1)
    message(FATAL_ERROR "expected one .deb, found: ${debs}")
endif()
run_step(${DPKG_DEB} --field ${debs} Package Version Depends)
set(root "${WORK_DIR}/root")
run_step(${DPKG_DEB} -x ${debs} "${root}")

foreach(path bin/acp-chat bin/acp-demo-agent include/acp/acp.h include/acp/acp_cdef.h include/acp/client.hpp
        include/acp/turn.hpp include/acp/version.hpp lib/libacp.so lib/libacp_static.a lib/pkgconfig/acp.pc
        lib/pkgconfig/acp_static.pc lib/cmake/acp/acpConfig.cmake lib/cmake/acp/acpConfigVersion.cmake
        libexec/acp/acp-mcp-bridge)
    if(NOT EXISTS "${root}/usr/${path}")
        message(FATAL_ERROR "the package lacks usr/${path}")
    endif()
endforeach()
# The packaged acp-chat finds the packaged demo agent beside itself and holds a turn.
run_step(sh -c "cd '${WORK_DIR}' && printf 'hello\\ny\\n' | '${root}/usr/bin/acp-chat' --no-color | grep -q 'end_turn'")

foreach(mode cmake pkgconfig)
    set(consumer_build "${WORK_DIR}/consumer-${mode}")
    run_step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer" -B "${consumer_build}"
        -DCONSUMER_MODE=${mode} "-DCMAKE_PREFIX_PATH=${root}/usr")
    run_step(${CMAKE_COMMAND} --build "${consumer_build}")
    run_step("${consumer_build}/acp-consumer")
    run_step("${consumer_build}/acp-consumer-c")
endforeach()
