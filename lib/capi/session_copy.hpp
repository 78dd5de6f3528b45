// SPDX-License-Identifier: Apache-2.0
// Copies of the session model that the C API hands out (internal): acp_session, a whole
// session, and acp_item, one item. Both are made on the loop thread from the live model
// and are immutable afterwards, so a host reads them on any thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "acp/acp.h"
#include "acp/session.hpp"

namespace acp::capi {

// What the typed accessors of an item read.
struct ItemBasics {
    int index = -1;
    int kind = ACP_ITEM_UNKNOWN;
    std::string id;
    std::string json;                   // as in the canonical dump
    std::optional<std::string> text;    // messages: text blocks concatenated; terminals: output
    std::optional<std::string> title;   // tool calls
    std::optional<std::string> status;  // tool calls and compactions
};

ItemBasics copy_basics(const SessionItem& item, std::size_t index);

}  // namespace acp::capi

struct acp_item : acp::capi::ItemBasics {
    std::optional<std::string> tool_kind;                     // tool calls
    std::vector<std::pair<std::string, std::string>> fields;  // top-level members as JSON
    std::vector<std::string> content;  // content blocks (messages, tool calls) or summary (compactions)
};

struct acp_session {
    std::string id;
    std::string json;
    std::string state;
    std::optional<std::string> stop_reason;
    std::optional<std::string> title;
    std::optional<std::string> config_options;
    std::optional<std::string> commands;
    bool has_usage = false;
    double used = 0;
    double size = 0;
    std::vector<acp::capi::ItemBasics> items;
};

namespace acp::capi {

acp_item* copy_item(const SessionItem& item, std::size_t index);
acp_session* copy_session(const SessionState& state);

}  // namespace acp::capi
