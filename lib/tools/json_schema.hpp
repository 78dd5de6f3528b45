// SPDX-License-Identifier: Apache-2.0
// A JSON Schema subset validator for tool arguments (internal).
//
// The schema is the host's (trusted, checked once when the tool is added); the instance
// is the agent's (hostile). Checked keywords: type (a name or a list), properties,
// required, additionalProperties (false or a schema), enum, const, items (one schema),
// minItems/maxItems, minLength/maxLength (in code points), minimum/maximum. Every other
// keyword is ignored (accepted). The walk follows the schema, so its depth is the
// schema's, never the instance's.
//
//   auto schema = JsonSchema::parse(R"({"type":"object","required":["path"]})");
//   if (Status s = schema->validate(arguments); !s) refuse(s.message());  // "$: missing 'path'"
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <string_view>

#include "acp/status.hpp"
#include "jsonrpc/json.hpp"

namespace acp::detail::tools {

class JsonSchema {
public:
    // Fails unless text is a JSON object (boolean schemas are not taken: tools need objects).
    static Result<std::shared_ptr<const JsonSchema>> parse(std::string_view text);

    // Ok, or a Status whose message names the first violation and where ("$.a[2]: ...").
    Status validate(const JsonValue& instance) const;

    const JsonValue& root() const { return document_; }

private:
    JsonSchema() = default;
    rapidjson::Document document_;
};

}  // namespace acp::detail::tools
