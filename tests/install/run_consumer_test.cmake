# SPDX-License-Identifier: Apache-2.0
# Installs the built libacp into a scratch prefix, then configures, builds and runs a tiny
# consumer project against it twice: through find_package(acp CONFIG) and through
# pkg-config; checks the bindings are installed too (the Lua module, the Neovim plugin,
# the Python package, which imports from the prefix). Run by CTest with -DSOURCE_DIR,
# -DBUILD_DIR, -DWORK_DIR, -DBINDIR, -DLIBDIR, -DDATADIR, -DPYTHONDIR, -DPYTHON_IMPORT (0 in a
# sanitized build).
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

include("${CMAKE_CURRENT_LIST_DIR}/run_step.cmake")

run_step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

# With the samples, acp-chat is installed next to the demo agent, and finds it there.
if(SAMPLES)
    run_step("${prefix}/${BINDIR}/acp-chat" --version)
    file(WRITE "${WORK_DIR}/chat-input" "/echo installed and working\n")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env "XDG_STATE_HOME=${WORK_DIR}/state"
                            "${prefix}/${BINDIR}/acp-chat" --cwd /tmp
        INPUT_FILE "${WORK_DIR}/chat-input" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "\ninstalled and working\n")
        message(FATAL_ERROR "the installed acp-chat did not run (${rc}):\n${out}\n${err}")
    endif()
endif()

foreach(path ${LIBDIR}/libacp.so.0 ${DATADIR}/lua/5.1/acp.lua ${DATADIR}/lua/5.1/acp/native.lua
        ${DATADIR}/nvim/site/pack/libacp/start/acp/plugin/acp.lua
        ${DATADIR}/nvim/site/pack/libacp/start/acp/lua/acp/chat.lua ${PYTHONDIR}/libacp/client.py
        ${DATADIR}/nvim/site/pack/libacp/start/acp/doc/acp.txt ${DATADIR}/nvim/site/pack/libacp/start/acp/doc/tags)
    if(NOT EXISTS "${prefix}/${path}")
        message(FATAL_ERROR "cmake --install did not install ${path}")
    endif()
endforeach()
# Package files are for the .deb only (EXCLUDE_FROM_ALL).
if(EXISTS "${prefix}/${DATADIR}/doc/libacp0")
    message(FATAL_ERROR "cmake --install installed the Debian package's doc directory")
endif()
if(PYTHON_IMPORT)
    find_program(PYTHON3 python3 REQUIRED)
    run_step(${CMAKE_COMMAND} -E env "PYTHONPATH=${prefix}/${PYTHONDIR}" "ACP_LIBRARY=${prefix}/${LIBDIR}/libacp.so.0"
        ${PYTHON3} -c "import libacp, sys; assert libacp.__file__.startswith(sys.argv[1]); print('installed libacp', libacp.__version__)"
        "${prefix}/${PYTHONDIR}")
endif()

foreach(mode cmake pkgconfig)
    set(consumer_build "${WORK_DIR}/consumer-${mode}")
    run_step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer" -B "${consumer_build}"
        -DCONSUMER_MODE=${mode} "-DCMAKE_PREFIX_PATH=${prefix}" -DACP_LIBDIR=${LIBDIR}
        # A sanitized libacp needs the sanitizer runtime in the consumer too.
        "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_C_FLAGS=${CONSUMER_FLAGS}"
        "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
    run_step(${CMAKE_COMMAND} --build "${consumer_build}")
    run_step("${consumer_build}/acp-consumer")
    # The shared library is found through the consumer's RPATH into the prefix.
    run_step("${consumer_build}/acp-consumer-c")
endforeach()

# Passed: the scratch copies go (hundreds of MB in a sanitized build); a failure keeps them.
file(REMOVE_RECURSE "${WORK_DIR}")
