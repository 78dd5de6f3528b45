// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/message_facts.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace acp::detail {

namespace {

std::string session_of(const rapidjson::Value& object) {
    if (!object.IsObject()) return {};
    auto it = object.FindMember("sessionId");
    if (it == object.MemberEnd() || !it->value.IsString()) return {};
    return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

MessageFacts inspect_message(std::string_view json) {
    MessageFacts facts;
    rapidjson::Document doc;
    doc.Parse(json.data(), json.size());
    if (doc.HasParseError() || !doc.IsObject()) return facts;

    auto method = doc.FindMember("method");
    bool has_method = method != doc.MemberEnd() && method->value.IsString();
    if (has_method) facts.method.assign(method->value.GetString(), method->value.GetStringLength());

    auto id = doc.FindMember("id");
    bool has_id = id != doc.MemberEnd();
    if (has_id) {
        const rapidjson::Value& value = id->value;
        if (value.IsString()) {
            facts.id_key = "s:" + std::string(value.GetString(), value.GetStringLength());
        } else if (value.IsNumber()) {
            rapidjson::StringBuffer text;
            rapidjson::Writer<rapidjson::StringBuffer> writer(text);
            value.Accept(writer);
            facts.id_key = "n:" + std::string(text.GetString(), text.GetSize());
        } else if (value.IsNull()) {
            facts.id_key = "null";
        }
        rapidjson::StringBuffer text;
        rapidjson::Writer<rapidjson::StringBuffer> writer(text);
        value.Accept(writer);
        facts.id_json.assign(text.GetString(), text.GetSize());
    }

    if (has_method) {
        facts.is_request = has_id;
        facts.is_notification = !has_id;
        auto params = doc.FindMember("params");
        if (params != doc.MemberEnd()) facts.params_session = session_of(params->value);
    } else if (has_id) {
        facts.is_response = true;
        auto result = doc.FindMember("result");
        if (result != doc.MemberEnd()) facts.result_session = session_of(result->value);
    }
    return facts;
}

}  // namespace acp::detail
