// SPDX-License-Identifier: Apache-2.0
// The public responders: each answers one agent request exactly once.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>

#include <utility>

#include "client/responder_state.hpp"
#include "protocol/codec_support.hpp"
#include "protocol/request_checks.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v2/codec.hpp"

namespace acp {

namespace av1 = acp::v1;
namespace av2 = acp::v2;
namespace codec = acp::v2::codec;
namespace v1codec = acp::v1::codec;
using detail::JsonWriter;

PermissionResponder::State::~State() {
    if (!responder.answered()) send_cancelled();
}

void PermissionResponder::State::send_cancelled() const {
    responder.respond([](JsonWriter& w) {
        av2::RequestPermissionResponse response;
        response.outcome = av2::RequestPermissionOutcome::make_cancelled({});
        codec::encode(w, response);
    });
}

PermissionResponder::PermissionResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

void PermissionResponder::select(const std::string& option_id) const {
    if (state_->responder.answered()) return;
    if (state_->offered.count(option_id) == 0) {
        // CLIENT-MUST-71: only an offered optionId; anything else would read as approval
        // of something never offered, so the request is answered "cancelled" instead.
        state_->send_cancelled();
        return;
    }
    state_->responder.respond([&option_id](JsonWriter& w) {
        av2::RequestPermissionResponse response;
        av2::SelectedPermissionOutcome selected;
        selected.optionId = option_id;
        response.outcome = av2::RequestPermissionOutcome::make_selected(std::move(selected));
        codec::encode(w, response);
    });
}

void PermissionResponder::cancel() const {
    if (!state_->responder.answered()) state_->send_cancelled();
}

bool PermissionResponder::answered() const { return state_->responder.answered(); }

void PermissionResponder::on_withdrawn(std::function<void()> fn) const { state_->on_withdrawn = std::move(fn); }

ElicitationResponder::State::~State() {
    if (!responder.answered()) send(av2::CreateElicitationResponseAction::make_cancel());
}

void ElicitationResponder::State::send(av2::CreateElicitationResponseAction action) const {
    responder.respond([&action](JsonWriter& w) {
        av2::CreateElicitationResponse response;
        response.action = std::move(action);
        codec::encode(w, response);
    });
}

ElicitationResponder::ElicitationResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

Status ElicitationResponder::accept(const RawJson& content) const {
    if (state_->responder.answered()) return Status(Errc::invalid_argument, "the elicitation was already answered");
    // Decoding {"action":"accept","content":...} checks the content's shape before it goes out.
    std::string wrapped = "{\"action\":\"accept\",\"content\":" + (content.text.empty() ? "{}" : content.text) + "}";
    rapidjson::Document document;
    document.Parse(wrapped.data(), wrapped.size());
    av2::CreateElicitationResponse response;
    Status decoded =
        document.HasParseError() ? Status(Errc::invalid_argument, "not JSON") : codec::decode(document, response);
    if (!decoded || response.action.kind() != av2::CreateElicitationResponseAction::Kind::accept) {
        return Status(Errc::invalid_argument,
                      "elicitation content must be a JSON object of property values: " + decoded.message());
    }
    state_->responder.respond([&response](JsonWriter& w) { codec::encode(w, response); });
    return Status();
}

void ElicitationResponder::decline() const {
    if (!state_->responder.answered()) state_->send(av2::CreateElicitationResponseAction::make_decline());
}

void ElicitationResponder::cancel() const {
    if (!state_->responder.answered()) state_->send(av2::CreateElicitationResponseAction::make_cancel());
}

bool ElicitationResponder::answered() const { return state_->responder.answered(); }

void ElicitationResponder::on_withdrawn(std::function<void()> fn) const { state_->on_withdrawn = std::move(fn); }

ExtResponder::ExtResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

void ExtResponder::respond(RawJson result) const {
    if (Status s = detail::check_raw_object(result, "an extension result"); !s) {
        state_->responder.fail(detail::rpc_code::internal_error, s.message());
        return;
    }
    state_->responder.respond([&result](JsonWriter& w) {
        if (result.text.empty()) {
            w.StartObject();
            w.EndObject();
        } else {
            detail::write_raw(w, result);
        }
    });
}

void ExtResponder::fail(int code, const std::string& message) const { state_->responder.fail(code, message); }

bool ExtResponder::answered() const { return state_->responder.answered(); }

void ExtResponder::on_withdrawn(std::function<void()> fn) const { state_->on_withdrawn = std::move(fn); }

namespace {

// Sends a v1 client method's answer; true when it was the first one. Raw JSON the host
// put in it (_meta) that is not JSON fails the request instead of going out as null.
template <class Response>
bool send_answer(const ClientMethodResponder::State& state, const Response& response) {
    if (state.responder.answered()) return false;
    rapidjson::StringBuffer encoded;
    detail::RawJsonAudit audit;
    JsonWriter writer(encoded);
    v1codec::encode(writer, response);
    Status valid = audit.status();
    if (valid) valid = detail::check_written_message(std::string_view(encoded.GetString(), encoded.GetSize()));
    if (!valid) {
        // A file read as Latin-1, say: never sent as it is.
        state.responder.fail(detail::rpc_code::internal_error, "the client's answer was invalid: " + valid.message());
        return false;
    }
    state.responder.respond(
        [&encoded](JsonWriter& w) { w.RawValue(encoded.GetString(), encoded.GetSize(), rapidjson::kObjectType); });
    return true;
}

template <class Response>
void send_watched(const ClientMethodResponder::State& state, const Response& response,
                  const std::function<void(const Response&)>& watch) {
    if (send_answer(state, response) && watch) watch(response);
}

}  // namespace

ClientMethodResponder::ClientMethodResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

void ClientMethodResponder::respond(const av1::ReadTextFileResponse& response) const { send_answer(*state_, response); }
void ClientMethodResponder::respond(const av1::WriteTextFileResponse& response) const {
    send_answer(*state_, response);
}
void ClientMethodResponder::respond(const av1::CreateTerminalResponse& response) const {
    send_watched(*state_, response, state_->terminal_created);
}
void ClientMethodResponder::respond(const av1::TerminalOutputResponse& response) const {
    send_watched(*state_, response, state_->terminal_output);
}
void ClientMethodResponder::respond(const av1::WaitForTerminalExitResponse& response) const {
    send_watched(*state_, response, state_->terminal_exited);
}
void ClientMethodResponder::respond(const av1::KillTerminalResponse& response) const { send_answer(*state_, response); }
void ClientMethodResponder::respond(const av1::ReleaseTerminalResponse& response) const {
    send_answer(*state_, response);
}
void ClientMethodResponder::fail(int code, const std::string& message) const { state_->responder.fail(code, message); }
bool ClientMethodResponder::answered() const { return state_->responder.answered(); }
void ClientMethodResponder::on_withdrawn(std::function<void()> fn) const { state_->on_withdrawn = std::move(fn); }

}  // namespace acp
