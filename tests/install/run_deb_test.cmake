# SPDX-License-Identifier: Apache-2.0
# Makes the Debian packages with cpack (cmake/AcpPackage.cmake), checks their control
# fields and runs lintian on them (any error fails), extracts them with dpkg-deb into one
# scratch root (no installation on this machine), checks that it holds what a user needs,
# then from that root: runs acp-chat on the demo agent, builds and runs the consumer
# project through find_package and through pkg-config, loads require("acp") in LuaJIT and
# the Neovim plugin in a headless Neovim, and holds a prompt turn in Python.
# Run by CTest with -DSOURCE_DIR, -DBUILD_DIR, -DWORK_DIR, -DCPACK, -DLIBDIR, -DPYTHONDIR,
# -DREMOTE.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

include("${CMAKE_CURRENT_LIST_DIR}/run_step.cmake")

function(need_program var name why)
    find_program(${var} ${name})
    if(NOT ${var})
        message(FATAL_ERROR "${name} not found: this test needs it (${why}); run scripts/install-deps.sh")
    endif()
endfunction()
need_program(DPKG_DEB dpkg-deb "Debian's dpkg")
need_program(LINTIAN lintian "the package checks")
need_program(LUAJIT luajit "the Lua module")
need_program(NVIM nvim "the Neovim plugin")
need_program(PYTHON3 python3 "the Python package")

run_step(${CPACK} -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${WORK_DIR}/package")

# One package per component, and the fields a distribution relies on.
set(expected acp-chat libacp-dev libacp0 lua-acp python3-libacp)
set(found "")
file(GLOB debs "${WORK_DIR}/package/*.deb")
foreach(deb IN LISTS debs)
    execute_process(COMMAND ${DPKG_DEB} --field ${deb} Package OUTPUT_VARIABLE name OUTPUT_STRIP_TRAILING_WHITESPACE)
    list(APPEND found ${name})
    set(deb_${name} ${deb})
    foreach(field Version Architecture Depends Recommends Suggests)
        execute_process(COMMAND ${DPKG_DEB} --field ${deb} ${field} OUTPUT_VARIABLE value OUTPUT_STRIP_TRAILING_WHITESPACE)
        set(${name}_${field} "${value}")
    endforeach()
    message(STATUS "${name} ${${name}_Version} ${${name}_Architecture}\n  Depends: ${${name}_Depends}\n"
                   "  Recommends: ${${name}_Recommends}\n  Suggests: ${${name}_Suggests}")
endforeach()
list(SORT found)
if(NOT found STREQUAL expected)
    message(FATAL_ERROR "expected the packages ${expected}, made: ${found}")
endif()

function(expect_field package field regex why)
    if(NOT "${${package}_${field}}" MATCHES "${regex}")
        message(FATAL_ERROR "${package} ${field} '${${package}_${field}}' does not match ${regex}: ${why}")
    endif()
endfunction()
function(refuse_field package field regex why)
    if("${${package}_${field}}" MATCHES "${regex}")
        message(FATAL_ERROR "${package} ${field} '${${package}_${field}}' matches ${regex}: ${why}")
    endif()
endfunction()
# Computed by dpkg-shlibdeps from what libacp.so.0 links.
expect_field(libacp0 Depends "(^|, )libuv1 \\(>= " "the run time links libuv")
refuse_field(libacp0 Depends "-dev|pkg-config|curl|websockets|libedit|md4c" "the run time needs none of these")
if(REMOTE)
    # Loaded by the first Client::connect, so recommended, not required.
    expect_field(libacp0 Recommends "libcurl" "the HTTP transport loads libcurl")
    expect_field(libacp0 Recommends "libwebsockets[0-9]" "the WebSocket transport loads libwebsockets")
    expect_field(libacp0 Recommends "libwebsockets-evlib-uv" "libwebsockets runs on libuv through its plugin")
endif()
expect_field(libacp-dev Depends "libacp0 \\(= ${libacp0_Version}\\)" "headers and library of one version")
expect_field(libacp-dev Depends "libuv1-dev" "the C++ headers include uv.h")
expect_field(acp-chat Depends "libedit2" "acp-chat links libedit")
expect_field(acp-chat Depends "libmd4c0" "acp-chat links md4c")
refuse_field(acp-chat Depends "-dev|pkg-config" "a program needs no development files")
expect_field(lua-acp Architecture "^all$" "Lua sources only")
expect_field(python3-libacp Architecture "^all$" "Python sources only")
expect_field(python3-libacp Depends "libacp0" "the package loads libacp.so.0")

# lintian: errors fail the test; the remaining warnings are listed and explained in
# docs/packaging.md. Its output is in the test's log either way.
execute_process(COMMAND ${LINTIAN} --no-cfg --fail-on error --display-info --suppress-tags-from-file
        "${SOURCE_DIR}/packaging/debian/lintian-suppressed" ${debs}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "lintian (${rc}):\n${out}${err}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "lintian found errors in the packages")
endif()

set(root "${WORK_DIR}/root")
foreach(deb IN LISTS debs)
    run_step(${DPKG_DEB} -x ${deb} "${root}")
endforeach()

set(lib "${root}/usr/${LIBDIR}")
foreach(path bin/acp-chat bin/acp-demo-agent include/acp/acp.h include/acp/acp_cdef.h include/acp/client.hpp
        include/acp/turn.hpp include/acp/version.hpp ${LIBDIR}/libacp.so ${LIBDIR}/libacp.so.0
        ${LIBDIR}/libacp_static.a ${LIBDIR}/pkgconfig/acp.pc ${LIBDIR}/pkgconfig/acp_static.pc
        ${LIBDIR}/cmake/acp/acpConfig.cmake ${LIBDIR}/cmake/acp/acpConfigVersion.cmake
        share/lua/5.1/acp.lua share/lua/5.1/acp/native.lua share/nvim/site/pack/libacp/start/acp/plugin/acp.lua
        share/nvim/site/pack/libacp/start/acp/lua/acp/chat.lua ${PYTHONDIR}/libacp/__init__.py
        share/nvim/site/pack/libacp/start/acp/doc/acp.txt share/nvim/site/pack/libacp/start/acp/doc/tags
        share/doc/libacp0/copyright share/doc/libacp-dev/copyright share/doc/acp-chat/copyright
        share/doc/lua-acp/copyright share/doc/python3-libacp/copyright share/man/man1/acp-chat.1.gz
        share/man/man1/acp-demo-agent.1.gz libexec/acp/acp-mcp-bridge)
    if(NOT EXISTS "${root}/usr/${path}")
        message(FATAL_ERROR "the packages lack usr/${path}")
    endif()
endforeach()

# The packaged acp-chat finds the packaged demo agent beside itself and holds a turn.
run_step(sh -c "cd '${WORK_DIR}' && printf 'hello\\ny\\n' | '${root}/usr/bin/acp-chat' --no-color | grep -q 'end_turn'")

foreach(mode cmake pkgconfig)
    set(consumer_build "${WORK_DIR}/consumer-${mode}")
    run_step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer" -B "${consumer_build}"
        -DCONSUMER_MODE=${mode} "-DCMAKE_PREFIX_PATH=${root}/usr" -DACP_LIBDIR=${LIBDIR})
    run_step(${CMAKE_COMMAND} --build "${consumer_build}")
    run_step("${consumer_build}/acp-consumer")
    run_step("${consumer_build}/acp-consumer-c")
endforeach()

# The bindings from the packaged files only (ACP_LIBRARY and ACP_CDEF stand in for the
# system's library search and /usr/include, which a scratch root is not part of).
# (No ';' in these arguments: CMake would split them.)
set(env ${CMAKE_COMMAND} -E env "ACP_LIBRARY=${lib}/libacp.so.0" "ACP_CDEF=${root}/usr/include/acp/acp_cdef.h"
    "LUA_PATH=${root}/usr/share/lua/5.1/?.lua" "XDG_STATE_HOME=${WORK_DIR}/state")
file(WRITE "${WORK_DIR}/lua_check.lua" "
local acp = require('acp')
assert(acp.load())
print('lua-acp: libacp ' .. acp.version)
")
run_step(${env} ${LUAJIT} "${WORK_DIR}/lua_check.lua")
# Neovim finds the plugin as it would under /usr/share: a site directory on XDG_DATA_DIRS,
# its pack/*/start plugin loaded at start-up; the chat then runs on the packaged demo agent.
file(WRITE "${WORK_DIR}/nvim_check.lua" "
local ok, err = pcall(function()
  assert(vim.fn.exists(':AcpChat') == 2, 'the plugin did not define :AcpChat')
  vim.cmd('AcpChat ${root}/usr/bin/acp-demo-agent')
  local chat = require('acp.chat').current()
  assert(vim.wait(20000, function() return chat.session_id ~= nil end, 10), 'no session opened')
end)
if not ok then io.stderr:write(tostring(err), '\\n') vim.cmd('cquit 1') end
vim.cmd('qall!')
")
run_step(${env} "XDG_DATA_DIRS=${root}/usr/share" "XDG_CONFIG_HOME=${WORK_DIR}/config" "XDG_DATA_HOME=${WORK_DIR}/data"
    timeout 60 ${NVIM} --headless -i NONE -n -c "luafile ${WORK_DIR}/nvim_check.lua")
run_step(${env} "PYTHONPATH=${root}/usr/${PYTHONDIR}" sh -c
    "cd '${WORK_DIR}' && '${PYTHON3}' '${SOURCE_DIR}/examples/python/prompt.py' '${root}/usr/bin/acp-demo-agent' --delay-ms 0 --state-dir '${WORK_DIR}/state' | grep -q 'turn ended: end_turn'")

# Passed: the scratch copies go (hundreds of MB in a sanitized build); a failure keeps them.
file(REMOVE_RECURSE "${WORK_DIR}")
