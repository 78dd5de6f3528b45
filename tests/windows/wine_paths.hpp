// SPDX-License-Identifier: Apache-2.0
// The build's paths as Windows paths. CMake, on the build machine, names the test
// programs by their Unix paths; wine shows the Unix root as drive Z:. A Windows path is
// left as it is.
#pragma once

#include <string>

inline std::string windows_path(std::string path) {
    if (path.empty() || path[0] != '/') return path;
    for (char& c : path) {
        if (c == '/') c = '\\';
    }
    return "Z:" + path;
}
