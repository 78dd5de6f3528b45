// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/remote_headers.hpp"

#include <cstring>

namespace acp::detail {

namespace {

bool is_token_char(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

}  // namespace

Status check_remote_headers(const std::vector<std::pair<std::string, std::string>>& headers) {
    for (const auto& [name, value] : headers) {
        bool name_ok = !name.empty();
        for (unsigned char c : name) name_ok = name_ok && c != 0 && is_token_char(c);
        if (!name_ok) return Status(Errc::invalid_argument, "header name '" + name + "' is not an HTTP token");
        for (unsigned char c : value) {
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return Status(Errc::invalid_argument,
                              "the value of header '" + name + "' holds a control character (not sent)");
            }
        }
    }
    return Status();
}

}  // namespace acp::detail
