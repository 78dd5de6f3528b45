// SPDX-License-Identifier: Apache-2.0
// How the demo agent uses the MCP servers a client provides: which tool a prompt asks for,
// the envelope of an mcp/message request (MCP over ACP, revision 2026-07-28 as the ACP
// TypeScript SDK binds it), and the text of a tools/call outcome.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <string>
#include <string_view>

#include "json_text.hpp"

namespace demo {

// The params of one mcp/message request: the inner request with the metadata MCP
// 2026-07-28 asks of every request.
inline std::string mcp_message(const std::string& server_id, const std::string& request_id, const std::string& method,
                               const std::string& inner_params_members) {
    return R"({"serverId":)" + quote(server_id) + R"(,"requestId":)" + quote(request_id) + R"(,"method":)" +
           quote(method) + R"(,"params":{)" + inner_params_members + (inner_params_members.empty() ? "" : ",") +
           R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
           R"("io.modelcontextprotocol/clientCapabilities":{},)"
           R"("io.modelcontextprotocol/clientInfo":{"name":"acp-demo-agent","version":"1"}}}})";
}

inline std::string lowercase(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// Whether a prompt asks for a tool: it names it, or a word of its name of 4 letters or
// more, cut to its first 6 ("current_selection" is asked for by "What is selected?").
inline bool prompt_asks_for(const std::string& prompt, const std::string& tool) {
    const std::string text = lowercase(prompt);
    const std::string name = lowercase(tool);
    if (text.find(name) != std::string::npos) return true;
    std::string word;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        const bool end = i == name.size() || name[i] == '_' || name[i] == '-' || name[i] == '.';
        if (!end) {
            word.push_back(name[i]);
            continue;
        }
        if (word.size() >= 4 && text.find(word.substr(0, 6)) != std::string::npos) return true;
        word.clear();
    }
    return false;
}

// A tool whose input schema requires nothing can be called with {}.
inline bool needs_no_input(const rapidjson::Value& tool) {
    auto schema = tool.FindMember("inputSchema");
    if (schema == tool.MemberEnd() || !schema->value.IsObject()) return true;
    auto required = schema->value.FindMember("required");
    return required == schema->value.MemberEnd() || !required->value.IsArray() || required->value.Empty();
}

// The outcome without the envelope (over HTTP and stdio it is the whole JSON-RPC
// response): {"result":...} or {"error":...}, the same over every transport.
inline std::string outcome_json(const rapidjson::Value& outcome) {
    for (const char* key : {"result", "error"}) {
        auto member = outcome.FindMember(key);
        if (member == outcome.MemberEnd()) continue;
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        member->value.Accept(writer);
        return std::string(R"({")") + key + R"(":)" + std::string(buffer.GetString(), buffer.GetSize()) + "}";
    }
    return "{}";
}

// What the model would read of a tools/call outcome ({result} or {error}).
inline std::string outcome_text(const rapidjson::Value& outcome) {
    if (!outcome.IsObject()) return "(no answer)";
    auto error = outcome.FindMember("error");
    if (error != outcome.MemberEnd() && error->value.IsObject()) {
        auto message = error->value.FindMember("message");
        return "the server refused the call: " +
               std::string(message != error->value.MemberEnd() && message->value.IsString() ? message->value.GetString()
                                                                                            : "no reason");
    }
    auto result = outcome.FindMember("result");
    if (result == outcome.MemberEnd() || !result->value.IsObject()) return "(no result)";
    std::string text;
    auto content = result->value.FindMember("content");
    if (content != result->value.MemberEnd() && content->value.IsArray()) {
        for (const auto& block : content->value.GetArray()) {
            if (!block.IsObject()) continue;
            auto t = block.FindMember("text");
            if (t != block.MemberEnd() && t->value.IsString()) text += t->value.GetString();
        }
    }
    auto is_error = result->value.FindMember("isError");
    if (is_error != result->value.MemberEnd() && is_error->value.IsBool() && is_error->value.GetBool()) {
        return "the tool failed: " + text;
    }
    return text;
}

}  // namespace demo
