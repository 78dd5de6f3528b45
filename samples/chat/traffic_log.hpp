// SPDX-License-Identifier: Apache-2.0
// acp-chat's --log file: one JSON record per line, whatever the agent sends.
//
//   {"dir":"in","msg":{...}}     a message acp-chat sent to the agent ("in" to the agent,
//   {"dir":"out","msg":{...}}    "out" of it: the format of tests/peers/ts-agent/validate.mjs)
//   {"dir":"out","raw":"..."}    a line from the agent that is not one JSON value, as a string
//   {"dir":"log","level":"warning","source":"agent-stderr","text":"..."}   libacp's log records
//
// A line from the agent is only ever written as the value of "msg" after it was checked to
// be one complete JSON value, so it cannot end the record early and forge another one.
#pragma once

#include <acp/log.hpp>
#include <acp/traffic.hpp>

#include <fstream>
#include <string>
#include <string_view>

namespace chat {

// Whether text is exactly one JSON value (RFC 8259) in valid UTF-8, nested at most 512 deep.
bool is_one_json_value(std::string_view text);

// text as a JSON string literal; bytes that are not UTF-8 become U+FFFD.
std::string json_string_of_bytes(std::string_view text);

class TrafficLog {
public:
    bool open(const std::string& path);
    bool is_open() const { return out_.is_open(); }
    void message(acp::Direction direction, std::string_view line);
    void log(const acp::LogRecord& record);

private:
    std::ofstream out_;
};

}  // namespace chat
