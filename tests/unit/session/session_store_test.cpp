// SPDX-License-Identifier: Apache-2.0
// SessionStore behaviour beyond single updates: replay, cancel, permission subjects,
// removal and the change events observers receive.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/base64.hpp"
#include "unit/session/session_test_util.hpp"

using acp::SessionEvent;
using session_test::apply_all;
using session_test::dump;
using session_test::notification;
using session_test::select;

namespace {

constexpr const char* running = R"({"sessionUpdate":"state_update","state":"running"})";
constexpr const char* idle_end_turn = R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})";

std::string describe(const SessionEvent& e) {
    std::string text;
    switch (e.type) {
        case SessionEvent::Type::session_added: text = "added"; break;
        case SessionEvent::Type::session_reset: text = "reset"; break;
        case SessionEvent::Type::session_removed: text = "removed"; break;
        case SessionEvent::Type::item_inserted: text = "inserted"; break;
        case SessionEvent::Type::item_changed: text = "changed"; break;
        case SessionEvent::Type::state_changed: text = "state"; break;
        case SessionEvent::Type::turn_ended: text = "turn_ended"; break;
        case SessionEvent::Type::config_options_changed: text = "config"; break;
        case SessionEvent::Type::commands_changed: text = "commands"; break;
        case SessionEvent::Type::info_changed: text = "info"; break;
        case SessionEvent::Type::usage_changed: text = "usage"; break;
        case SessionEvent::Type::notice_added: text = "notice"; break;
        case SessionEvent::Type::replay_ended: text = "replay_ended"; break;
    }
    if (e.type == SessionEvent::Type::item_inserted || e.type == SessionEvent::Type::item_changed) {
        text += " " + std::to_string(e.index) + " " + std::string(acp::item_kind_name(e.item_kind)) + ":" +
                std::string(e.item_id);
    }
    return std::string(e.session_id) + " " + text;
}

struct Recorder {
    std::vector<std::string> events;
    acp::SessionSubscription subscription;
    explicit Recorder(acp::SessionStore& store)
        : subscription(store.subscribe([this](const SessionEvent& e) { events.push_back(describe(e)); })) {}
};

}  // namespace

TEST_CASE("session store: a permission subject is applied like a tool_call_update") {
    // CLIENT-MUST-70
    acp::SessionStore store;
    apply_all(store,
              {R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Edit","status":"in_progress"})"});
    acp::v2::ToolCallUpdate subject;
    subject.toolCallId = "c1";
    subject.status = acp::v2::ToolCallStatus{"pending"};
    subject.rawInput = acp::RawJson{R"({"path":"/a"})"};
    CHECK(store.apply_permission_subject("s1", subject).ok());
    const std::string json = dump(store);
    CHECK(select(json, "items[0].status") == R"("pending")");
    CHECK(select(json, "items[0].title") == R"("Edit")");
    CHECK(select(json, "items[0].rawInput") == R"({"path":"/a"})");
}

TEST_CASE("session store: a permission subject with a new id creates the tool call") {
    // CLIENT-MUST-70, CLIENT-MUST-50
    acp::SessionStore store;
    acp::v2::ToolCallUpdate subject;
    subject.toolCallId = "c9";
    subject.title = "Run tests";
    CHECK(store.apply_permission_subject("s1", subject).ok());
    CHECK(select(dump(store), "items[0].id") == R"("c9")");
}

TEST_CASE("session store: a full replay into a store that holds the session gives the fresh model") {
    // CLIENT-GUIDE 7.6: reset, then replay; no duplicated text
    const std::vector<const char*> live = {
        running,
        R"({"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"Fix it"}]})",
        R"({"sessionUpdate":"agent_message_chunk","messageId":"a1","content":{"type":"text","text":"Look"}})",
        R"({"sessionUpdate":"agent_message_chunk","messageId":"a1","content":{"type":"text","text":"ing"}})",
        R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Read","status":"completed"})",
        R"({"sessionUpdate":"notice","severity":"info","title":"live only"})",
        idle_end_turn,
    };
    const std::vector<const char*> replay = {
        R"({"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"Fix it"}]})",
        R"({"sessionUpdate":"agent_message_chunk","messageId":"a1","content":{"type":"text","text":"Look"}})",
        R"({"sessionUpdate":"agent_message_chunk","messageId":"a1","content":{"type":"text","text":"ing"}})",
        R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Read","status":"completed"})",
        idle_end_turn,
    };
    acp::SessionStore warm;
    for (const char* u : live) CHECK(warm.apply(session_test::notification(u)).ok());
    warm.begin_replay("s1");
    for (const char* u : replay) CHECK(warm.apply(session_test::notification(u)).ok());
    warm.end_replay("s1");

    acp::SessionStore fresh;
    fresh.begin_replay("s1");
    for (const char* u : replay) CHECK(fresh.apply(session_test::notification(u)).ok());
    fresh.end_replay("s1");

    CHECK(dump(warm) == dump(fresh));
    CHECK(select(dump(warm), "items[1].content") == R"([{"type":"text","text":"Looking"}])");
}

TEST_CASE("session store: replayed and resumed idle snapshots are not completions") {
    // CLIENT-MUST-58
    acp::SessionStore store;
    Recorder recorder(store);
    apply_all(store, {running, idle_end_turn, idle_end_turn});
    store.begin_resume("s1");
    apply_all(store, {idle_end_turn});
    store.end_replay("s1");
    apply_all(store, {running});
    store.begin_replay("s1");
    apply_all(store, {running, idle_end_turn});
    store.end_replay("s1");
    int completions = 0;
    for (const auto& e : recorder.events) completions += e == "s1 turn_ended" ? 1 : 0;
    CHECK(completions == 1);
}

TEST_CASE("session store: a repeated identical state snapshot emits nothing") {
    // CLIENT-GUIDE 6.6: repeats are idempotent
    acp::SessionStore store;
    apply_all(store, {running});
    Recorder recorder(store);
    apply_all(store, {running});
    CHECK(recorder.events.empty());
}

TEST_CASE("session store: an unknown state is busy and ending it is a completion") {
    // CLIENT-MUST-57
    acp::SessionStore store;
    Recorder recorder(store);
    apply_all(store, {R"({"sessionUpdate":"state_update","state":"_acme_thinking"})"});
    const acp::SessionState* state = store.find("s1");
    REQUIRE(state != nullptr);
    CHECK(state->foreground().is_busy());
    CHECK_FALSE(state->foreground().is_known());
    apply_all(store, {idle_end_turn});
    CHECK(recorder.events == std::vector<std::string>{"s1 added", "s1 state", "s1 state", "s1 turn_ended"});
}

TEST_CASE("session store: requires_action is busy and idle after it ends the turn") {
    // CLIENT-MUST-65: the turn ends with the idle state update (turn_ended), not at any earlier update
    constexpr const char* blocked = R"({"sessionUpdate":"state_update","state":"requires_action"})";
    acp::SessionStore store;
    Recorder recorder(store);
    apply_all(store,
              {running, R"({"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"Go"}]})",
               blocked});
    const acp::SessionState* state = store.find("s1");
    REQUIRE(state != nullptr);
    CHECK(state->foreground().state == "requires_action");
    CHECK(state->foreground().is_busy());
    CHECK(state->foreground().is_known());
    apply_all(store,
              {R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"})", running, blocked});
    CHECK(recorder.events == std::vector<std::string>{"s1 added", "s1 state", "s1 inserted 0 user_message:u1",
                                                      "s1 state", "s1 inserted 1 tool_call:c1", "s1 state",
                                                      "s1 state"});
    apply_all(store, {idle_end_turn});
    CHECK(state->foreground().is_idle());
    CHECK(recorder.events.size() == 9);
    CHECK(recorder.events.back() == "s1 turn_ended");
    CHECK(recorder.events[7] == "s1 state");
}

TEST_CASE("session store: work blocked from the start ends with a completion too") {
    // CLIENT-MUST-65, CLIENT-MUST-58
    acp::SessionStore store;
    Recorder recorder(store);
    apply_all(store, {R"({"sessionUpdate":"state_update","state":"requires_action","background":[]})", idle_end_turn,
                      idle_end_turn});
    CHECK(recorder.events == std::vector<std::string>{"s1 added", "s1 state", "s1 state", "s1 turn_ended"});
    // Replayed, the same snapshots are state only.
    store.begin_replay("s1");
    apply_all(store, {R"({"sessionUpdate":"state_update","state":"requires_action"})", idle_end_turn});
    store.end_replay("s1");
    int completions = 0;
    for (const auto& e : recorder.events) completions += e == "s1 turn_ended" ? 1 : 0;
    CHECK(completions == 1);
}

TEST_CASE("session store: a live session and its replay differ in form but give the same model") {
    // CLIENT-GUIDE 7.6: live = streamed chunks; replay = whole messages and terminal snapshots
    using acp::test::base64;
    // "café 😀 ok\n" with the é split after its lead byte and the emoji after two bytes.
    const std::vector<std::string> pieces = {"caf\xC3", "\xA9 \xF0\x9F", "\x98\x80 ok\n"};
    std::string bytes;
    for (const auto& piece : pieces) bytes += piece;
    const std::string tool_call =
        R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Run tests","kind":"execute","content":[{"type":"terminal","terminalId":"t1"}])";
    auto chunk = [](const char* t) {
        return std::string(
                   R"({"sessionUpdate":"agent_message_chunk","messageId":"a1","content":{"type":"text","text":")") +
               t + "\"}}";
    };
    auto terminal_chunk = [&](const std::string& piece) {
        return R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":")" + base64(piece) + "\"}";
    };
    const std::vector<std::string> live = {
        running,
        R"({"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"Run the tests"}]})",
        chunk("Runn"),
        chunk("ing t\u00e9"),
        tool_call + R"(,"status":"in_progress"})",
        R"({"sessionUpdate":"terminal_update","terminalId":"t1","command":"make test"})",
        terminal_chunk(pieces[0]),
        terminal_chunk(pieces[1]),
        terminal_chunk(pieces[2]),
        R"({"sessionUpdate":"terminal_update","terminalId":"t1","exitStatus":{"exitCode":0}})",
        R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"})",
        chunk("sts: done"),
        idle_end_turn,
    };
    const std::vector<std::string> replay = {
        R"({"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"Run the tests"}]})",
        R"({"sessionUpdate":"agent_message","messageId":"a1","content":[{"type":"text","text":"Running t\u00e9sts: done"}]})",
        tool_call + R"(,"status":"completed"})",
        R"({"sessionUpdate":"terminal_update","terminalId":"t1","command":"make test","output":{"data":")" +
            base64(bytes) + R"("},"exitStatus":{"exitCode":0}})",
        idle_end_turn,
    };
    acp::SessionStore store;
    for (const auto& u : live) CHECK(store.apply(session_test::notification(u)).ok());
    const std::string live_model = dump(store);
    CHECK(select(live_model, "items[1].content") == "[{\"type\":\"text\",\"text\":\"Running t\xC3\xA9sts: done\"}]");
    CHECK(select(live_model, "items[3].output") == "\"caf\xC3\xA9 \xF0\x9F\x98\x80 ok\\n\"");
    CHECK(select(live_model, "items[3].outputBytes") == std::to_string(bytes.size()));

    Recorder recorder(store);
    store.begin_replay("s1");
    for (const auto& u : replay) CHECK(store.apply(session_test::notification(u)).ok());
    store.end_replay("s1");
    CHECK(dump(store) == live_model);
    int completions = 0;
    for (const auto& e : recorder.events) completions += e == "s1 turn_ended" ? 1 : 0;
    CHECK(completions == 0);
}

TEST_CASE("session store: mark_cancelled cancels unfinished foreground tool calls only") {
    // CLIENT-MUST-69
    acp::SessionStore store;
    apply_all(
        store,
        {
            R"({"sessionUpdate":"tool_call_update","toolCallId":"done","status":"completed"})",
            R"({"sessionUpdate":"tool_call_update","toolCallId":"running","status":"in_progress"})",
            R"({"sessionUpdate":"tool_call_update","toolCallId":"pending"})",
            R"({"sessionUpdate":"tool_call_update","toolCallId":"custom","status":"_acme_queued"})",
            R"({"sessionUpdate":"tool_call_update","toolCallId":"watcher","status":"paused"})",
            R"({"sessionUpdate":"state_update","state":"running","background":[{"type":"tool_call","toolCallId":"watcher"}]})",
        });
    store.mark_cancelled("s1");
    const std::string json = dump(store);
    CHECK(select(json, "items[0].status") == R"("completed")");
    CHECK(select(json, "items[1].status") == R"("cancelled")");
    CHECK(select(json, "items[2].status") == R"("cancelled")");
    CHECK(select(json, "items[3].status") == R"("cancelled")");
    CHECK(select(json, "items[4].status") == R"("paused")");
}

TEST_CASE("session store: the agent's later status wins over a local cancel") {
    // CLIENT-MUST-69, CLIENT-MUST-60
    acp::SessionStore store;
    apply_all(store, {running, R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress"})"});
    store.mark_cancelled("s1");
    apply_all(store, {R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"})"});
    CHECK(select(dump(store), "items[0].status") == R"("completed")");
}

TEST_CASE("session store: mark_cancelled does nothing while idle") {
    acp::SessionStore store;
    apply_all(store, {R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress"})"});
    store.mark_cancelled("s1");
    CHECK(select(dump(store), "items[0].status") == R"("in_progress")");
}

TEST_CASE("session store: observers get ordered item events with index and id") {
    acp::SessionStore store;
    Recorder recorder(store);
    apply_all(store,
              {
                  R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})",
                  R"({"sessionUpdate":"tool_call_update","toolCallId":"c1"})",
                  R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"b"}})",
                  R"({"sessionUpdate":"usage_update","used":1,"size":2})",
                  R"({"sessionUpdate":"config_option_update","configOptions":[]})",
                  R"({"sessionUpdate":"available_commands_update","availableCommands":[]})",
                  R"({"sessionUpdate":"session_info_update","title":"T"})",
                  R"({"sessionUpdate":"notice","severity":"info","title":"n"})",
              });
    store.remove("s1");
    CHECK(recorder.events == std::vector<std::string>{"s1 added", "s1 inserted 0 agent_message:m1",
                                                      "s1 inserted 1 tool_call:c1", "s1 changed 0 agent_message:m1",
                                                      "s1 usage", "s1 config", "s1 commands", "s1 info", "s1 notice",
                                                      "s1 removed"});
    CHECK(store.find("s1") == nullptr);
}

TEST_CASE("session store: a full replay resets the session at its first change, end_replay ends it") {
    // CLIENT-GUIDE 7.6: clear the transcript before a full replay, or chunks duplicate it.
    acp::SessionStore store;
    const std::string chunk_a =
        R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})";
    apply_all(store, {chunk_a});
    Recorder recorder(store);
    store.begin_replay("s1");
    CHECK(store.find("s1")->replaying());
    CHECK(store.find("s1")->items().size() == 1);  // shown until the replay brings something
    CHECK(recorder.events.empty());
    apply_all(store, {chunk_a});
    store.end_replay("s1");
    CHECK(recorder.events == std::vector<std::string>{"s1 reset", "s1 inserted 0 agent_message:m1", "s1 replay_ended"});
    REQUIRE(store.find("s1")->items().size() == 1);
    CHECK(select(dump(store), "items[0].content") == R"([{"type":"text","text":"a"}])");  // not "aa"
    CHECK_FALSE(store.find("s1")->replaying());
}

TEST_CASE("session store: a replay that brings nothing leaves the session empty") {
    acp::SessionStore store;
    apply_all(store,
              {R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})"});
    Recorder recorder(store);
    store.begin_replay("s1");
    store.end_replay("s1");
    CHECK(store.find("s1")->items().empty());
    CHECK(recorder.events == std::vector<std::string>{"s1 reset", "s1 replay_ended"});
}

TEST_CASE("session store: an aborted replay leaves the session as it was") {
    acp::SessionStore store;
    apply_all(store,
              {R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})",
               idle_end_turn});
    const std::string before = acp::to_json(*store.find("s1"));
    Recorder recorder(store);
    store.begin_replay("s1");
    store.abort_replay("s1");
    CHECK(acp::to_json(*store.find("s1")) == before);
    CHECK_FALSE(store.find("s1")->replaying());
    CHECK(recorder.events == std::vector<std::string>{"s1 replay_ended"});
}

TEST_CASE("session store: a full replay of a session the store never held emits no reset") {
    acp::SessionStore store;
    Recorder recorder(store);
    store.begin_replay("s2");
    REQUIRE(store
                .apply(notification(
                    R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})",
                    "s2"))
                .ok());
    store.end_replay("s2");
    CHECK(recorder.events == std::vector<std::string>{"s2 added", "s2 inserted 0 agent_message:m1", "s2 replay_ended"});
}

TEST_CASE("session store: a dropped subscription receives nothing") {
    acp::SessionStore store;
    int calls = 0;
    {
        auto subscription = store.subscribe([&](const SessionEvent&) { ++calls; });
        apply_all(store, {running});
    }
    apply_all(store, {idle_end_turn});
    CHECK(calls == 2);  // added, state
}

TEST_CASE("session store: an observer may unsubscribe and subscribe during a dispatch") {
    acp::SessionStore store;
    int first = 0;
    int second = 0;
    acp::SessionSubscription self;
    acp::SessionSubscription later;
    self = store.subscribe([&](const SessionEvent&) {
        ++first;
        self.reset();
        later = store.subscribe([&](const SessionEvent&) { ++second; });
    });
    apply_all(store, {running, idle_end_turn});
    CHECK(first == 1);
    CHECK(second == 3);  // state, state, turn_ended after the added event
}

TEST_CASE("session store: a subscription may outlive its store") {
    acp::SessionSubscription subscription;
    {
        acp::SessionStore store;
        subscription = store.subscribe([](const SessionEvent&) {});
    }
    subscription.reset();
    CHECK(true);
}

TEST_CASE("session store: sessions are kept apart") {
    // CLIENT-MUST-48: each session's updates apply to that session only
    acp::SessionStore store;
    CHECK(store
              .apply(session_test::notification(
                  R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})",
                  "s1"))
              .ok());
    CHECK(store
              .apply(session_test::notification(
                  R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"b"}})",
                  "s2"))
              .ok());
    CHECK(store.size() == 2);
    CHECK(select(dump(store, "s1"), "items[0].content[0].text") == R"("a")");
    CHECK(select(dump(store, "s2"), "items[0].content[0].text") == R"("b")");
}

TEST_CASE("session store: responses replace config options and commands, list info replaces info") {
    // CLIENT-MUST-56, CLIENT-MUST-44
    acp::SessionStore store;
    apply_all(
        store,
        {R"({"sessionUpdate":"config_option_update","configOptions":[{"configId":"a","name":"A","type":"boolean","currentValue":true}]})"});
    store.set_config_options("s1", {});
    store.set_available_commands("s1", {});
    acp::v2::SessionInfo info;
    info.sessionId = "s1";
    info.cwd = "/w";
    info.title = "T";
    info.additionalDirectories = std::vector<std::string>{"/x"};
    store.set_session_info(info);
    const std::string json = dump(store);
    CHECK(select(json, "configOptions") == "[]");
    CHECK(select(json, "availableCommands") == "[]");
    CHECK(select(json, "info") ==
          R"({"title":"T","updatedAt":null,"cwd":"/w","additionalDirectories":["/x"],"_meta":{}})");
    // A later list says other roots: they replace the earlier ones, never merge with them.
    info.additionalDirectories = std::vector<std::string>{"/y", "/z"};
    store.set_session_info(info);
    CHECK(select(dump(store), "info.additionalDirectories") == R"(["/y","/z"])");
    // Absent means none now (absent = empty), not "as before".
    info.additionalDirectories.reset();
    store.set_session_info(info);
    CHECK(select(dump(store), "info.additionalDirectories") != R"(["/y","/z"])");
    CHECK(select(dump(store), "info.additionalDirectories").find("/y") == std::string::npos);
}

TEST_CASE("session store: find by kind and id") {
    acp::SessionStore store;
    apply_all(store,
              {R"({"sessionUpdate":"tool_call_update","toolCallId":"c1"})",
               R"({"sessionUpdate":"agent_message_chunk","messageId":"c1","content":{"type":"text","text":"a"}})"});
    const acp::SessionState& state = *store.find("s1");
    CHECK(state.find(acp::ItemKind::agent_message, "c1") == std::optional<std::size_t>(1));
    CHECK(state.find(acp::ItemKind::user_message, "c1") == std::nullopt);
    REQUIRE(state.item(acp::ItemKind::tool_call, "c1") != nullptr);
    CHECK(state.item(acp::ItemKind::tool_call, "c1")->tool_call()->status == "pending");
}

TEST_CASE("session store: what session/list said while a full replay is pending survives its reset") {
    acp::SessionStore store;
    apply_all(store, {R"({"sessionUpdate":"session_info_update","title":"old"})"});
    store.begin_replay("s1");
    acp::v2::SessionInfo listed;
    listed.sessionId = "s1";
    listed.cwd = "/work";
    listed.title = std::string("listed");
    store.set_session_info(listed);
    apply_all(store,
              {R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})"});
    store.end_replay("s1");
    CHECK(select(dump(store), "info.title") == R"("listed")");
    CHECK(select(dump(store), "info.cwd") == R"("/work")");
}

TEST_CASE("session store: item events of a chunk carry the text it appended, other changes none") {
    using acp::test::base64;
    acp::SessionStore store;
    std::vector<std::string> appended;  // "-" for an event without appended text
    auto subscription = store.subscribe([&](const SessionEvent& e) {
        if (e.type != SessionEvent::Type::item_inserted && e.type != SessionEvent::Type::item_changed) return;
        appended.push_back(e.appended_text ? "+" + std::string(*e.appended_text) : "-");
    });
    const std::string check = "\xE2\x9C\x93";  // split across two terminal chunks below
    apply_all(
        store,
        {
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"Hel"}})",
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"lo"}})",
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"image","data":"AA==","mimeType":"image/png"}})",
            R"({"sessionUpdate":"agent_message","messageId":"m1","content":[{"type":"text","text":"Replaced"}]})",
            R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Edit"})",
        });
    const std::string first = R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":")" +
                              base64("ok " + check.substr(0, 1)) + "\"}";
    const std::string second = R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":")" +
                               base64(check.substr(1) + "\n") + "\"}";
    const std::string snapshot =
        R"({"sessionUpdate":"terminal_update","terminalId":"t1","output":{"data":")" + base64("new") + "\"}}";
    apply_all(store, {first, second, snapshot});
    CHECK(appended == std::vector<std::string>{"+Hel", "+lo", "+", "-", "-", "+ok ", "+" + check + "\n", "-"});
}

TEST_CASE("session store: chunks alternating between entities of one id and kinds land in their own items") {
    // The store remembers the item the last chunk went to (a lookup saved per streamed
    // chunk); a chunk of another kind with the same id, or after a reset, must not take it.
    acp::SessionStore store;
    apply_all(store,
              {R"({"sessionUpdate":"agent_message_chunk","messageId":"x","content":{"type":"text","text":"a1 "}})",
               R"({"sessionUpdate":"agent_thought_chunk","messageId":"x","content":{"type":"text","text":"t1 "}})",
               R"({"sessionUpdate":"agent_message_chunk","messageId":"x","content":{"type":"text","text":"a2"}})",
               R"({"sessionUpdate":"user_message_chunk","messageId":"x","content":{"type":"text","text":"u"}})",
               R"({"sessionUpdate":"agent_thought_chunk","messageId":"x","content":{"type":"text","text":"t2"}})"});
    CHECK(store.apply_text_chunk("s1", acp::ItemKind::agent_message, "x", " a3").ok());
    CHECK(store.apply_text_chunk("s1", acp::ItemKind::agent_message, "y", "b").ok());
    CHECK(store.apply_text_chunk("s1", acp::ItemKind::agent_message, "x", " a4").ok());
    const std::string model = dump(store);
    CHECK(select(model, "items[0].content[0].text") == R"("a1 a2 a3 a4")");
    CHECK(select(model, "items[1].content[0].text") == R"("t1 t2")");
    CHECK(select(model, "items[2].content[0].text") == R"("u")");
    CHECK(select(model, "items[3].content[0].text") == R"("b")");
    CHECK(select(model, "items[4]") == "<missing>");

    // A full replay empties the session: the remembered item is gone with it.
    store.begin_replay("s1");
    CHECK(store.apply_text_chunk("s1", acp::ItemKind::agent_thought, "x", "again").ok());
    store.end_replay("s1");
    const std::string replayed = dump(store);
    CHECK(select(replayed, "items[0].kind") == R"("agent_thought")");
    CHECK(select(replayed, "items[0].content[0].text") == R"("again")");
    CHECK(select(replayed, "items[1]") == "<missing>");
}
