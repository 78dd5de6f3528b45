// SPDX-License-Identifier: Apache-2.0
// What a ToolServer holds (internal): its name, options and tools, each with its schemas
// compiled once and its tools/list entry written once.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "acp/tools.hpp"
#include "tools/json_schema.hpp"

namespace acp {

class ToolServer::Impl {
public:
    struct Entry {
        Tool tool;
        std::shared_ptr<const detail::tools::JsonSchema> input;
        std::shared_ptr<const detail::tools::JsonSchema> output;  // null: no output schema
        std::string listing;                                      // the tool's object in a tools/list result
    };

    Impl(std::string name_in, ToolServerOptions options_in)
        : name(std::move(name_in)), options(std::move(options_in)) {}

    Status add(Tool tool);
    // Shared, so a call keeps its tool while the host adds others.
    std::shared_ptr<const Entry> find(std::string_view tool_name) const;

    const std::string name;
    const ToolServerOptions options;
    std::vector<std::shared_ptr<const Entry>> tools;
};

}  // namespace acp
