# SPDX-License-Identifier: Apache-2.0
# Installs headers, both libraries, a CMake package (find_package(acp CONFIG): acp::acp is
# the shared library with the C API of acp/acp.h, acp::acp_static the static library with
# the C++ API) and two pkg-config files: acp.pc (C API, -lacp) and acp_static.pc (C++);
# and the bindings: the Lua module (share/lua/5.1, LuaJIT's search path), the Neovim
# plugin (share/nvim/site/pack/libacp/start/acp, loaded at start-up) and the Python package
# (ACP_INSTALL_PYTHONDIR). Components, one Debian package each (cmake/AcpPackage.cmake):
# runtime (libacp.so.0), dev, chat (samples/CMakeLists.txt), lua, python.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/acp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/acp/version.hpp ${ACP_CDEF_HEADER}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/acp COMPONENT dev)

install(TARGETS acp_shared acp_static EXPORT acpTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
set_target_properties(acp_shared PROPERTIES EXPORT_NAME acp)
set_target_properties(acp_static PROPERTIES EXPORT_NAME acp_static)

# The MCP bridge libacp embeds, also installed for ACP_MCP_BRIDGE (lib/tools/bridge_carrier.hpp):
# POSIX only (not built for Windows, issue 31).
if(TARGET acp_mcp_bridge)
    install(TARGETS acp_mcp_bridge RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/acp COMPONENT runtime)
endif()

install(EXPORT acpTargets NAMESPACE acp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/acp COMPONENT dev)
configure_package_config_file(cmake/acpConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/acpConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/acp)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/acpConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/acpConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/acpConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/acp COMPONENT dev)

# acp.pc finds its prefix relative to itself, so the installed tree can move.
file(RELATIVE_PATH ACP_PC_PREFIX_FROM_PCFILEDIR "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
# The remote transports load libcurl and libwebsockets at run time, the HTTP tools carrier
# libmicrohttpd: nothing to link but the dynamic loader.
if(ACP_WITH_REMOTE OR ACP_WITH_HTTP_TOOLS)
    set(ACP_PC_REMOTE_LIBS "${CMAKE_DL_LIBS}")
    list(TRANSFORM ACP_PC_REMOTE_LIBS PREPEND "-l")
else()
    set(ACP_PC_REMOTE_LIBS "")
endif()
configure_file(cmake/acp.pc.in ${CMAKE_CURRENT_BINARY_DIR}/acp.pc @ONLY)
configure_file(cmake/acp_static.pc.in ${CMAKE_CURRENT_BINARY_DIR}/acp_static.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/acp.pc ${CMAKE_CURRENT_BINARY_DIR}/acp_static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The samples' manual pages (packaging/man), compressed as Debian installs them.
if(ACP_BUILD_SAMPLES)
    set(pages acp-demo-agent.1)
    if(ACP_BUILD_SAMPLES_CHAT)
        list(APPEND pages acp-chat.1)
    endif()
    file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/packaging)
    foreach(page IN LISTS pages)
        execute_process(COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/packaging/man/${page}
            OUTPUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/packaging/${page}.gz RESULT_VARIABLE gzip_rc)
        if(NOT gzip_rc EQUAL 0)
            message(FATAL_ERROR "gzip failed (${gzip_rc}) on packaging/man/${page}")
        endif()
        install(FILES ${CMAKE_CURRENT_BINARY_DIR}/packaging/${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
                COMPONENT chat)
    endforeach()
endif()

install(FILES bindings/lua/acp.lua DESTINATION ${CMAKE_INSTALL_DATADIR}/lua/5.1 COMPONENT lua)
install(DIRECTORY bindings/lua/acp DESTINATION ${CMAKE_INSTALL_DATADIR}/lua/5.1 COMPONENT lua
        FILES_MATCHING PATTERN "*.lua")
install(DIRECTORY bindings/lua/nvim/ DESTINATION ${CMAKE_INSTALL_DATADIR}/nvim/site/pack/libacp/start/acp
        COMPONENT lua FILES_MATCHING PATTERN "*.lua" PATTERN "*.txt")
# The plugin's help tags, as :helptags makes them (the installed directory is not writable).
# Brackets and semicolons stand in as <lb>, <rb>, <sc> while in CMake lists, where "[" would join items.
file(READ bindings/lua/nvim/doc/acp.txt ACP_NVIM_HELP)
string(REPLACE "[" "<lb>" ACP_NVIM_HELP "${ACP_NVIM_HELP}")
string(REPLACE "]" "<rb>" ACP_NVIM_HELP "${ACP_NVIM_HELP}")
string(REPLACE ";" "<sc>" ACP_NVIM_HELP "${ACP_NVIM_HELP}")
string(REPLACE "\n" ";" ACP_NVIM_HELP "${ACP_NVIM_HELP}")
set(ACP_NVIM_TAGS "")
foreach(line IN LISTS ACP_NVIM_HELP)
    string(REGEX MATCHALL "\\*[^*| \t]+\\*" marks "${line}")
    foreach(mark IN LISTS marks)
        string(REGEX REPLACE "^\\*(.*)\\*$" "\\1" tag "${mark}")
        list(APPEND ACP_NVIM_TAGS "${tag}\tacp.txt\t/*${tag}*")
    endforeach()
endforeach()
list(SORT ACP_NVIM_TAGS)
list(JOIN ACP_NVIM_TAGS "\n" ACP_NVIM_TAGS)
string(REPLACE "<lb>" "[" ACP_NVIM_TAGS "${ACP_NVIM_TAGS}")
string(REPLACE "<rb>" "]" ACP_NVIM_TAGS "${ACP_NVIM_TAGS}")
string(REPLACE "<sc>" "\;" ACP_NVIM_TAGS "${ACP_NVIM_TAGS}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/nvim-doc/tags "${ACP_NVIM_TAGS}\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nvim-doc/tags
        DESTINATION ${CMAKE_INSTALL_DATADIR}/nvim/site/pack/libacp/start/acp/doc COMPONENT lua)
# Relative to the prefix; the default is where Debian's python3 looks under /usr (the .deb).
set(ACP_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
    "Where `cmake --install` puts the Python package libacp, relative to the prefix")
install(DIRECTORY bindings/python/libacp DESTINATION ${ACP_INSTALL_PYTHONDIR} COMPONENT python
        FILES_MATCHING PATTERN "*.py" PATTERN "py.typed" PATTERN "__pycache__" EXCLUDE)
