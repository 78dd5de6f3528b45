# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` (from the build directory) makes one Debian package per install component
# (cmake/AcpInstall.cmake, samples/CMakeLists.txt):
#   libacp0         runtime: libacp.so.0 (the C ABI)
#   libacp-dev      dev: headers, libacp.so, libacp_static.a, CMake package, .pc files, acp_cdef.h
#   acp-chat        chat: acp-chat and acp-demo-agent
#   lua-acp         lua: require("acp") for LuaJIT and the Neovim plugin
#   python3-libacp  python: `import libacp`
# Run-time dependencies are computed by dpkg-shlibdeps from what the binaries link; the
# libraries libacp loads on demand (libcurl, libwebsockets) are Recommends, named by the
# Debian packages that hold the sonames the build found. Tested by install.deb_package
# (lintian included).
set(CPACK_PACKAGE_NAME libacp)
set(CPACK_PACKAGE_VENDOR "libacp")
# Who answers for the packages: a distributor sets their own (.invalid: no real mailbox).
set(ACP_PACKAGE_CONTACT "libacp maintainers <maintainers@libacp.invalid>" CACHE STRING
    "Maintainer of the Debian packages (cpack), 'Name <address>'")
set(CPACK_PACKAGE_CONTACT "${ACP_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Client SDK for the Agent Client Protocol (C++17 and C API, on libuv)")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/libacp/libacp")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev chat lua python)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_LICENSE "Apache-2.0")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Debug information stays in the build tree (a RelWithDebInfo build would weigh 100+ MiB).
set(CPACK_STRIP_FILES ON)
# Files and directories 0644/0755 whatever the umask of the build.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# Extended descriptions: lines under 80 columns (Debian policy 5.6.13).
set(ACP_DEB_DESCRIPTION_TAIL
    "libacp starts an ACP agent (or connects to one over WebSocket or HTTP),\ntalks to it and keeps an always-correct model of every session's\nconversation, for editors and IDEs.")
set(ACP_DEB_VERSION "${CPACK_DEBIAN_PACKAGE_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libacp0)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "Agent Client Protocol client library\n${ACP_DEB_DESCRIPTION_TAIL}\n.\nThis package holds the shared library with the C API (acp.h).")
# A shlibs file, so that packages linking libacp.so.0 depend on this one, and the ldconfig
# trigger instead of maintainer scripts.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libacp-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "Agent Client Protocol client library (development files)\n${ACP_DEB_DESCRIPTION_TAIL}\n.\nThis package holds the C and C++ headers, the static library with the\nC++ API, the CMake package (find_package(acp)), the pkg-config files and\nacp_cdef.h for FFI bindings.")
# The C++ headers include uv.h; acp.pc and acp_static.pc require libuv.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libacp0 (= ${ACP_DEB_VERSION}), libuv1-dev")

set(CPACK_DEBIAN_CHAT_PACKAGE_NAME acp-chat)
set(CPACK_DEBIAN_CHAT_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_CHAT_DESCRIPTION
    "terminal chat client for Agent Client Protocol agents\nacp-chat talks to a coding agent over the Agent Client Protocol from a\nterminal: prompts, streamed answers, tool calls, permission requests.\nacp-demo-agent is an offline agent to try it with.")

set(CPACK_DEBIAN_LUA_PACKAGE_NAME lua-acp)
set(CPACK_DEBIAN_LUA_PACKAGE_SECTION interpreters)
set(CPACK_DEBIAN_LUA_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_LUA_DESCRIPTION
    "Agent Client Protocol client for LuaJIT and Neovim\n${ACP_DEB_DESCRIPTION_TAIL}\n.\nThis package holds the LuaJIT FFI module require(\"acp\") and the Neovim\nchat plugin (:AcpChat).")
# The module loads libacp.so and acp_cdef.h (libacp-dev) through LuaJIT's FFI.
set(CPACK_DEBIAN_LUA_PACKAGE_DEPENDS "libacp-dev (= ${ACP_DEB_VERSION}), luajit | neovim")
set(CPACK_DEBIAN_LUA_PACKAGE_SUGGESTS "neovim, acp-chat")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-libacp)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PYTHON_DESCRIPTION
    "Agent Client Protocol client for Python 3\n${ACP_DEB_DESCRIPTION_TAIL}\n.\nThis package holds the Python package libacp (ctypes on the C API,\nstandard library only).")
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3, libacp0 (>= ${CPACK_DEBIAN_PACKAGE_VERSION})")

# The remote transports load libcurl and libwebsockets (with its libuv event library, a
# plugin in libwebsockets' directory) on the first Client::connect, the catalogue
# libarchive, the HTTP tool carrier libmicrohttpd: Recommends, by the packages that hold
# the files the build found.
function(acp_deb_package_of file out)
    find_program(ACP_DPKG_QUERY dpkg-query)
    get_filename_component(real "${file}" REALPATH)
    set(${out} "" PARENT_SCOPE)
    if(ACP_DPKG_QUERY AND EXISTS "${real}")
        execute_process(COMMAND ${ACP_DPKG_QUERY} -S "${real}" OUTPUT_VARIABLE owner ERROR_QUIET RESULT_VARIABLE rc)
        if(rc EQUAL 0 AND owner MATCHES "^([^:,]+)")
            set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
        endif()
    endif()
endfunction()
function(acp_deb_remote_recommends out)
    set(packages "")
    # PKG|file name|library base name: what the build found, by the package that holds it.
    foreach(entry "LIBCURL|${ACP_LIBCURL_SONAME}|curl" "LIBWEBSOCKETS|${ACP_LIBWEBSOCKETS_SONAME}|websockets"
                  "LIBWEBSOCKETS|libwebsockets-evlib_uv.so|websockets" "LIBARCHIVE|${ACP_LIBARCHIVE_SONAME}|archive"
                  "LIBMICROHTTPD|${ACP_LIBMICROHTTPD_SONAME}|microhttpd")
        string(REPLACE "|" ";" fields "${entry}")
        list(GET fields 0 pkg)
        list(LENGTH fields count)
        if(count LESS 3)
            continue()  # not in this build (its soname is empty)
        endif()
        list(GET fields 1 name)
        list(GET fields 2 base)
        set(linked ${${pkg}_LINK_LIBRARIES})
        list(FILTER linked INCLUDE REGEX "/lib${base}\\.")
        if(NOT linked)
            continue()
        endif()
        list(GET linked 0 linked)
        get_filename_component(dir "${linked}" DIRECTORY)
        acp_deb_package_of("${dir}/${name}" package)
        if(package)
            list(APPEND packages ${package})
        else()
            message(STATUS "libacp .deb: no Debian package holds ${dir}/${name}; not in Recommends")
        endif()
    endforeach()
    list(REMOVE_DUPLICATES packages)
    list(JOIN packages ", " packages)
    set(${out} "${packages}" PARENT_SCOPE)
endfunction()
if(ACP_WITH_REMOTE OR ACP_WITH_HTTP_TOOLS)
    acp_deb_remote_recommends(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS)
endif()

# Each package's copyright file and changelog (Debian policy 12.5, 12.7): installed only
# by the package build (EXCLUDE_FROM_ALL keeps them out of a plain `cmake --install`).
configure_file(packaging/debian/copyright.in ${CMAKE_CURRENT_BINARY_DIR}/packaging/copyright @ONLY)
configure_file(packaging/debian/changelog.in ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog @ONLY)
execute_process(COMMAND gzip -9nc ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog
    OUTPUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog.Debian.gz RESULT_VARIABLE gzip_rc)
if(NOT gzip_rc EQUAL 0)
    message(FATAL_ERROR "gzip failed (${gzip_rc}) on the Debian changelog")
endif()
foreach(component IN LISTS CPACK_COMPONENTS_ALL)
    string(TOUPPER ${component} upper)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/packaging/copyright ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog.Debian.gz
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_DEBIAN_${upper}_PACKAGE_NAME}
            COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()
include(CPack)
