// SPDX-License-Identifier: Apache-2.0
// acp_event (internal): one thing that happened, as the accessors of include/acp/acp.h
// read it. Immutable once emitted, except for the responder a host may take.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acp/acp.h"
#include "acp/status.hpp"

struct acp_event {
    int type = 0;
    unsigned long request = 0;
    std::string json = "null";
    std::optional<std::string> session_id;
    std::optional<std::string> method;
    std::optional<std::string> text;
    int log_level = 0;
    int direction = 0;
    int change = -1;      // SESSION_CHANGED: ACP_CHANGE_*
    int item_index = -1;  // SESSION_CHANGED about an item, PERMISSION_REQUEST about a tool call
    int item_kind = ACP_ITEM_UNKNOWN;
    std::optional<std::string> item_id;
    std::optional<std::string> appended_text;  // SESSION_CHANGED by a chunk that only appended
    std::optional<std::string> state;          // SESSION_CHANGED STATE and TURN_ENDED
    std::optional<std::string> stop_reason;
    struct Option {
        std::string id, name, kind;
    };
    std::vector<Option> options;             // PERMISSION_REQUEST
    std::optional<std::string> tool_server;  // TOOL_CALL
    std::optional<std::string> tool_name;
    std::string message;
    std::string rpc_data;
    acp_status status{ACP_OK, "", 0, ""};
    // A request event owns the answer until the host takes it (see acp_event_take_responder).
    mutable acp_responder* responder = nullptr;

    acp_event() = default;
    acp_event(const acp_event&) = delete;
    acp_event& operator=(const acp_event&) = delete;
    ~acp_event();

    void set_status(const acp::Status& s);
};
