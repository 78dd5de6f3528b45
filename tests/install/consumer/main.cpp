// SPDX-License-Identifier: Apache-2.0
// Links against an installed libacp and checks that headers and library agree.
#include <acp/status.hpp>
#include <acp/version.hpp>

#include <cstdio>
#include <cstring>

int main() {
    acp::Status status(acp::Errc::invalid_argument, "cwd must be absolute");
    if (std::strcmp(acp::version_string(), ACP_VERSION_STRING) != 0 || status.ok() ||
        status.to_string() != "invalid_argument: cwd must be absolute") {
        std::puts("libacp consumer: mismatch");
        return 1;
    }
    std::printf("libacp consumer: linked libacp %s\n", acp::version_string());
    return 0;
}
