# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` (from the build directory) makes a Debian package of everything
# `cmake --install` installs: libacp.so and libacp_static.a, the headers, the CMake and
# pkg-config files, acp-chat and acp-demo-agent. Tested by install.deb_package.
set(CPACK_PACKAGE_NAME libacp)
set(CPACK_PACKAGE_VENDOR "libacp")
set(CPACK_PACKAGE_CONTACT "libacp maintainers <libacp@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Client SDK for the Agent Client Protocol (C++17 and C API, on libuv)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_LICENSE "Apache-2.0")
# libuv at run time; its headers for C++ users (client.hpp includes uv.h) and pkg-config
# for the CMake package's fallback and the .pc files.
# acp-chat links libedit (its prompt line) and md4c (Markdown) dynamically.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libuv1 (>= 1.44), libuv1-dev, pkg-config, libedit2, libmd4c0")
# Remote transports: libcurl and libwebsockets (with its libuv event library), all loaded
# at run time by the first Client::connect.
if(ACP_WITH_REMOTE)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libcurl4, libwebsockets17, libwebsockets-evlib-uv, libarchive13")
endif()
# Tools offered over loopback HTTP: libmicrohttpd, loaded by the first HTTP carrier.
if(ACP_WITH_HTTP_TOOLS)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libmicrohttpd12")
endif()
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
# Debug information stays in the build tree (a RelWithDebInfo build would weigh 100+ MiB).
set(CPACK_STRIP_FILES ON)
include(CPack)
