// SPDX-License-Identifier: Apache-2.0
#include "acp/version.hpp"

namespace acp {

const char* version_string() { return ACP_VERSION_STRING; }
int version_major() { return ACP_VERSION_MAJOR; }
int version_minor() { return ACP_VERSION_MINOR; }
int version_patch() { return ACP_VERSION_PATCH; }

}  // namespace acp
