// SPDX-License-Identifier: Apache-2.0
// acp::ToolResponder: a tool handler's one answer, sent by the call's endpoint.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>

#include <cmath>
#include <utility>

#include "tools/tool_endpoint.hpp"

namespace acp {

namespace {

using detail::JsonWriter;

// "content": [{"type": "text", "text": ...}], the one block every tool result carries.
void write_text_content(JsonWriter& w, const std::string& text) {
    w.Key("content");
    w.StartArray();
    w.StartObject();
    w.Key("type");
    w.String("text");
    w.Key("text");
    detail::write_string(w, text);
    w.EndObject();
    w.EndArray();
}

std::string text_result(const std::string& text, bool is_error) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    write_text_content(w, text);
    if (is_error) {
        w.Key("isError");
        w.Bool(true);
    }
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

ToolResponder::State::~State() {
    if (answered || cancelled) return;
    if (auto endpoint_alive = endpoint.lock()) {
        endpoint_alive->finish(call, {}, -32603, "the tool's handler gave no answer");
    }
}

void ToolResponder::State::cancel(bool tell_host) {
    if (answered || cancelled) return;
    cancelled = true;
    auto fn = std::move(on_cancelled);
    on_cancelled = nullptr;
    if (fn && tell_host) fn();
}

ToolResponder::ToolResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

void ToolResponder::text(const std::string& text) const {
    if (state_->answered || state_->cancelled) return;
    state_->answered = true;
    if (auto endpoint = state_->endpoint.lock()) endpoint->finish(state_->call, text_result(text, false));
}

void ToolResponder::error(const std::string& message) const {
    if (state_->answered || state_->cancelled) return;
    state_->answered = true;
    if (auto endpoint = state_->endpoint.lock()) endpoint->finish(state_->call, text_result(message, true));
}

Status ToolResponder::structured(const RawJson& value) const {
    rapidjson::Document document;
    document.Parse(value.text.data(), value.text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return Status(Errc::invalid_argument, "a structured tool result must be a JSON object");
    }
    if (state_->tool->output) {
        if (Status s = state_->tool->output->validate(document); !s) {
            return Status(Errc::invalid_argument, "the result does not match the output schema of tool '" +
                                                      state_->tool->tool.name + "': " + s.message());
        }
    }
    if (state_->answered || state_->cancelled) return Status();
    const std::string compact = detail::to_json_text(document);
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    write_text_content(w, compact);
    w.Key("structuredContent");
    detail::write_raw_json(w, compact, rapidjson::kObjectType);
    w.EndObject();
    state_->answered = true;
    if (auto endpoint = state_->endpoint.lock())
        endpoint->finish(state_->call, std::string_view(buffer.GetString(), buffer.GetSize()));
    return Status();
}

Status ToolResponder::result(const RawJson& call_tool_result) const {
    rapidjson::Document document;
    document.Parse(call_tool_result.text.data(), call_tool_result.text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return Status(Errc::invalid_argument, "a CallToolResult must be a JSON object");
    }
    if (state_->answered || state_->cancelled) return Status();
    state_->answered = true;
    if (auto endpoint = state_->endpoint.lock()) endpoint->finish(state_->call, detail::to_json_text(document));
    return Status();
}

void ToolResponder::progress(double progress, double total, const std::string& message) const {
    if (state_->answered || state_->cancelled || state_->progress_token.empty() || !std::isfinite(progress)) return;
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("progressToken");
    detail::write_raw_json(w, state_->progress_token, rapidjson::kStringType);
    w.Key("progress");
    w.Double(progress);
    if (total > 0 && std::isfinite(total)) {
        w.Key("total");
        w.Double(total);
    }
    if (!message.empty()) {
        w.Key("message");
        detail::write_string(w, message);
    }
    w.EndObject();
    if (auto endpoint = state_->endpoint.lock())
        endpoint->progress(state_->call, std::string_view(buffer.GetString(), buffer.GetSize()));
}

bool ToolResponder::answered() const { return state_->answered; }
bool ToolResponder::cancelled() const { return state_->cancelled; }

void ToolResponder::on_cancelled(std::function<void()> fn) const {
    if (!fn) return;
    if (state_->cancelled) return fn();
    if (state_->answered) return;
    state_->on_cancelled = std::move(fn);
}

}  // namespace acp
