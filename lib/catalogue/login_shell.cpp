// SPDX-License-Identifier: Apache-2.0
#include "catalogue/login_shell.hpp"

#include <string>

namespace acp {
namespace detail {

EnvList pick_variables(const EnvList& all, const std::vector<std::string>& names) {
    EnvList picked;
    auto add = [&](const std::string& name) {
        for (const auto& [n, value] : all) {
            if (n == name) {
                picked.emplace_back(n, value);
                return;
            }
        }
    };
    add("PATH");
    for (const auto& name : names) {
        if (name != "PATH") add(name);
    }
    return picked;
}

const Result<EnvList>& LoginShellCache::get(std::chrono::milliseconds timeout) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!result_) result_.emplace(run_login_shell(timeout));
    return *result_;
}

}  // namespace detail

Result<EnvList> login_shell_environment(const std::vector<std::string>& names, std::chrono::milliseconds timeout) {
    auto all = detail::run_login_shell(timeout);
    if (!all) return all.status();
    return detail::pick_variables(*all, names);
}

}  // namespace acp
