# SPDX-License-Identifier: Apache-2.0
# Installs headers, both libraries, a CMake package (find_package(acp CONFIG): acp::acp is
# the shared library with the C API of acp/acp.h, acp::acp_static the static library with
# the C++ API) and two pkg-config files: acp.pc (C API, -lacp) and acp_static.pc (C++).
include(CMakePackageConfigHelpers)

install(DIRECTORY include/acp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/acp/version.hpp ${ACP_CDEF_HEADER}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/acp)

install(TARGETS acp_shared acp_static EXPORT acpTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(acp_shared PROPERTIES EXPORT_NAME acp)
set_target_properties(acp_static PROPERTIES EXPORT_NAME acp_static)

# The MCP bridge libacp embeds, also installed for ACP_MCP_BRIDGE (lib/tools/bridge_carrier.hpp).
install(TARGETS acp_mcp_bridge RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/acp)

install(EXPORT acpTargets NAMESPACE acp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/acp)
configure_package_config_file(cmake/acpConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/acpConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/acp)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/acpConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/acpConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/acpConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/acp)

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
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
