// SPDX-License-Identifier: Apache-2.0
// The JSON-RPC connection, over an in-memory transport whose far end the test drives
// byte by byte as the agent.
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jsonrpc/connection.hpp"
#include "support/raw_peer.hpp"
#include "support/test_loop.hpp"
#include "transport/memory_transport.hpp"

using namespace acp::detail;
using acp::Errc;
using acp::LogLevel;
using acp::test::RawPeer;
using acp::test::TestLoop;

namespace {

struct Harness {
    TestLoop loop;
    std::vector<std::string> log;
    std::optional<Connection> rpc;
    std::optional<RawPeer> agent;

    explicit Harness(ConnectionOptions options = {}) {
        auto pair = make_memory_transport_pair(loop.get());
        rpc.emplace(loop.get(), std::move(pair.first), Logger([this](const acp::LogRecord& r) {
                        log.push_back(std::string(acp::log_level_name(r.level)) + ": " + std::string(r.message));
                    }),
                    options);
        agent.emplace(std::move(pair.second));
    }

    bool wait_lines(std::size_t count) {
        return loop.run_until([&] { return agent->lines.size() >= count; });
    }
    bool logged(const std::string& fragment) const {
        for (const auto& line : log) {
            if (line.find(fragment) != std::string::npos) return true;
        }
        return false;
    }
};

WriteFn object_with(const char* key, int value) {
    return [key, value](JsonWriter& w) {
        w.StartObject();
        w.Key(key);
        w.Int(value);
        w.EndObject();
    };
}

}  // namespace

TEST_CASE("connection: a request goes out as one JSON-RPC 2.0 line and its response completes it once") {
    Harness h;
    h.rpc->start();
    int calls = 0;
    std::string result;
    // CLIENT-MUST-04: "jsonrpc":"2.0" and integer ids.
    int64_t first = h.rpc->send_request("echo", object_with("n", 1), [&](const Reply& reply) {
        ++calls;
        REQUIRE(reply.status.ok());
        result = to_json_text(*reply.result);
    });
    int64_t second = h.rpc->send_request("ping", nullptr, [](const Reply&) {});
    CHECK(first != second);
    REQUIRE(h.wait_lines(2));
    CHECK(h.agent->lines[0] ==
          R"({"jsonrpc":"2.0","id":)" + std::to_string(first) + R"(,"method":"echo","params":{"n":1}})");
    // Params are always an object, {} when there are none.
    CHECK(h.agent->lines[1] ==
          R"({"jsonrpc":"2.0","id":)" + std::to_string(second) + R"(,"method":"ping","params":{}})");

    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(first) + R"(,"result":{"n":1}})");
    CHECK(h.loop.run_until([&] { return calls == 1; }));
    CHECK(result == R"({"n":1})");
    // A duplicate response is reported, never a second completion.
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(first) + R"(,"result":{"n":2}})");
    CHECK(h.loop.run_until([&] { return h.logged("matches no pending request"); }));
    CHECK(calls == 1);
    CHECK(h.rpc->pending_requests() == 1);
}

TEST_CASE("connection: no request id is reused while its request is pending") {
    // CLIENT-MUST-05: ids of unanswered requests are never handed out again, however many
    // requests complete around them (answered, cancelled, timed out).
    Harness h;
    h.rpc->start();
    std::set<int64_t> pending;
    std::vector<int64_t> all;
    auto send = [&](acp::detail::RequestOptions options = {}) {
        const int64_t id = h.rpc->send_request(
            "ping", nullptr, [](const Reply&) {}, options);
        CHECK(pending.insert(id).second);  // not the id of a request still waiting
        all.push_back(id);
        return id;
    };
    const int64_t held = send();  // never answered
    for (int round = 0; round < 50; ++round) {
        const int64_t answered = send();
        const int64_t cancelled = send();
        acp::detail::RequestOptions quick;
        quick.timeout = std::chrono::milliseconds(1);
        send(quick);
        REQUIRE(h.wait_lines(all.size()));
        h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(answered) + R"(,"result":{}})");
        CHECK(h.rpc->cancel_request(cancelled));
        REQUIRE(h.loop.run_until([&] { return h.rpc->pending_requests() == 1; }));
        pending = {held};  // only the held one still waits
    }
    CHECK(h.rpc->pending_requests() == 1);
}

TEST_CASE("connection: an error response becomes an rpc_error status with code, message and data") {
    Harness h;
    h.rpc->start();
    std::optional<acp::Status> status;
    int64_t id = h.rpc->send_request("session/close", nullptr, [&](const Reply& reply) { status = reply.status; });
    REQUIRE(h.wait_lines(1));
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"error":{"code":-32002,"message":"Resource not found","data":{"sessionId":"s-41"}}})");
    REQUIRE(h.loop.run_until([&] { return status.has_value(); }));
    CHECK(status->code() == Errc::rpc_error);
    CHECK(status->rpc_code() == -32002);
    CHECK(status->message() == "Resource not found");
    CHECK(status->rpc_data_json() == R"({"sessionId":"s-41"})");
}

TEST_CASE("connection: a malformed error object fails the request as a protocol error") {
    Harness h;
    h.rpc->start();
    std::optional<acp::Status> status;
    int64_t id = h.rpc->send_request("x", nullptr, [&](const Reply& reply) { status = reply.status; });
    REQUIRE(h.wait_lines(1));
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"error":{"code":"bad"}})");
    REQUIRE(h.loop.run_until([&] { return status.has_value(); }));
    CHECK(status->code() == Errc::protocol_error);
}

TEST_CASE("connection: notifications go out without id and come in to their handler, never answered") {
    Harness h;
    std::vector<std::string> seen;
    h.rpc->on_notification("session/update", [&](const JsonValue* params) {
        REQUIRE(params != nullptr);
        seen.push_back(to_json_text(*params));
    });
    h.rpc->start();
    h.rpc->send_notification("session/cancel", [](JsonWriter& w) {
        w.StartObject();
        w.Key("sessionId");
        w.String("s1");
        w.EndObject();
    });
    REQUIRE(h.wait_lines(1));
    CHECK(h.agent->lines[0] == R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}})");

    h.agent->send_line(R"({"jsonrpc":"2.0","method":"session/update","params":{"n":1}})");
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"session/update","params":{"n":2}})");
    CHECK(h.loop.run_until([&] { return seen.size() == 2; }));
    CHECK(seen == std::vector<std::string>{R"({"n":1})", R"({"n":2})"});
    h.loop.run_for(std::chrono::milliseconds(20));
    CHECK(h.agent->lines.size() == 1);  // CLIENT-MUST-07: nothing answered a notification
}

TEST_CASE("connection: unknown notifications are ignored but reported - $/ ones silently") {
    // CLIENT-MUST-09
    Harness h;
    std::vector<std::string> unknown;
    h.rpc->on_unknown_notification([&](std::string_view method, const JsonValue*) { unknown.emplace_back(method); });
    h.rpc->start();
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"_acme/status","params":{}})");
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"$/progress","params":{}})");
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"future/thing"})");
    h.loop.run_until([&] { return unknown.size() == 2; });
    h.loop.run_for(std::chrono::milliseconds(20));
    CHECK(unknown == std::vector<std::string>{"_acme/status", "future/thing"});
    CHECK(h.agent->lines.empty());  // CLIENT-MUST-07
}

TEST_CASE("connection: incoming requests are answered once, echoing the id with its JSON type") {
    // CLIENT-MUST-06
    Harness h;
    h.rpc->on_request("session/request_permission", [](const JsonValue* params, Responder r) {
        r.respond([params](JsonWriter& w) {
            w.StartObject();
            w.Key("got");
            params->Accept(w);
            w.EndObject();
        });
    });
    h.rpc->start();
    h.agent->send_line(R"({"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"a":1}})");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":"7","method":"session/request_permission","params":{"a":2}})");
    REQUIRE(h.wait_lines(2));
    CHECK(h.agent->lines[0] == R"({"jsonrpc":"2.0","id":7,"result":{"got":{"a":1}}})");
    CHECK(h.agent->lines[1] == R"({"jsonrpc":"2.0","id":"7","result":{"got":{"a":2}}})");
}

TEST_CASE("connection: a handler may answer later, from another loop turn") {
    Harness h;
    std::optional<Responder> held;
    h.rpc->on_request("elicitation/create", [&](const JsonValue*, Responder r) { held = r; });
    h.rpc->start();
    h.agent->send_line(R"({"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}})");
    REQUIRE(h.loop.run_until([&] { return held.has_value(); }));
    h.loop.run_for(std::chrono::milliseconds(20));
    CHECK(h.agent->lines.empty());
    held->respond([](JsonWriter& w) {
        w.StartObject();
        w.Key("action");
        w.String("decline");
        w.EndObject();
    });
    held.reset();
    REQUIRE(h.wait_lines(1));
    CHECK(h.agent->lines[0] == R"({"jsonrpc":"2.0","id":1,"result":{"action":"decline"}})");
}

TEST_CASE("connection: a request dropped unanswered is answered -32603, a second answer is dropped") {
    Harness h;
    std::optional<Responder> twice;
    h.rpc->on_request("dropped", [](const JsonValue*, Responder) {});
    h.rpc->on_request("twice", [&](const JsonValue*, Responder r) {
        r.fail(-32602, "bad");
        r.respond(nullptr);
    });
    h.rpc->on_request("throws", [](const JsonValue*, Responder) { throw std::runtime_error("host bug"); });
    h.rpc->start();
    h.agent->send_line(R"({"jsonrpc":"2.0","id":1,"method":"dropped"})");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":2,"method":"twice"})");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":3,"method":"throws"})");
    REQUIRE(h.wait_lines(3));
    h.loop.run_for(std::chrono::milliseconds(20));
    REQUIRE(h.agent->lines.size() == 3);
    CHECK(h.agent->parsed(0)["error"]["code"].GetInt() == -32603);
    CHECK(h.agent->parsed(1)["error"]["code"].GetInt() == -32602);
    CHECK(h.agent->parsed(2)["error"]["code"].GetInt() == -32603);
    CHECK(h.logged("answered twice"));
    CHECK(h.logged("host bug"));
}

TEST_CASE("connection: unknown methods are answered -32601, extension methods included") {
    // CLIENT-MUST-08
    Harness h;
    h.rpc->start();
    h.agent->send_line(R"({"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{}})");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":"x","method":"_acme/openBuffer","params":{}})");
    REQUIRE(h.wait_lines(2));
    CHECK(
        h.agent->lines[0] ==
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"method":"fs/read_text_file"}}})");
    CHECK(h.agent->parsed(1)["id"] == "x");
    CHECK(h.agent->parsed(1)["error"]["code"].GetInt() == -32601);
}

TEST_CASE("connection: malformed JSON is reported and answered -32700, and the connection keeps working") {
    Harness h;
    bool echoed = false;
    h.rpc->start();
    h.agent->send_line("this is not json");
    h.agent->send_line("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"t\":\"\xFF\xFE\"}}");  // invalid UTF-8
    REQUIRE(h.wait_lines(2));
    for (std::size_t i = 0; i < 2; ++i) {
        auto reply = h.agent->parsed(i);
        CHECK(reply["id"].IsNull());
        CHECK(reply["error"]["code"].GetInt() == -32700);
    }
    CHECK(h.logged("malformed message"));
    CHECK(h.logged("Invalid encoding"));
    int64_t id = h.rpc->send_request("echo", nullptr, [&](const Reply& r) { echoed = r.status.ok(); });
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{}})");
    CHECK(h.loop.run_until([&] { return echoed; }));
}

TEST_CASE("connection: a malformed response to a pending request fails that request instead of hanging") {
    Harness h;
    std::optional<acp::Status> status;
    h.rpc->start();
    int64_t id = h.rpc->send_request("x", nullptr, [&](const Reply& r) { status = r.status; });
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"a":tru})");
    REQUIRE(h.loop.run_until([&] { return status.has_value(); }));
    CHECK(status->code() == Errc::protocol_error);
}

TEST_CASE("connection: invalid requests are answered -32600") {
    Harness h;
    h.rpc->start();
    h.agent->send_line(R"({"id":1,"method":"x"})");                     // no "jsonrpc"
    h.agent->send_line(R"({"jsonrpc":"2.0","id":null,"method":"x"})");  // null id
    h.agent->send_line(R"({"jsonrpc":"2.0","id":1.5,"method":"x"})");   // fractional id
    h.agent->send_line(R"(42)");                                        // not an object
    h.agent->send_line(R"({"jsonrpc":"2.0","id":9,"method":7})");       // method not a string
    h.agent->send_line(R"({"jsonrpc":"2.0","id":10})");                 // neither request nor response
    REQUIRE(h.wait_lines(6));
    const char* expected_ids[] = {"1", "null", "null", "null", "9", "10"};
    for (std::size_t i = 0; i < 6; ++i) {
        auto reply = h.agent->parsed(i);
        INFO("line " << i << ": " << h.agent->lines[i]);
        CHECK(reply["error"]["code"].GetInt() == -32600);
        CHECK(to_json_text(reply["id"]) == expected_ids[i]);
    }
}

TEST_CASE("connection: a response to an unknown id is reported, not fatal") {
    Harness h;
    h.rpc->start();
    h.agent->send_line(R"({"jsonrpc":"2.0","id":999,"result":{}})");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":"abc","result":{}})");
    CHECK(h.loop.run_until([&] { return h.logged("999") && h.logged("\"abc\""); }));
    CHECK_FALSE(h.rpc->is_closed());
    CHECK(h.agent->lines.empty());
}

TEST_CASE("connection: a batch is answered with one array - notifications in it get nothing") {
    Harness h;
    int notified = 0;
    std::optional<Responder> later;
    h.rpc->on_request("now", [](const JsonValue*, Responder r) { r.respond(nullptr); });
    h.rpc->on_request("later", [&](const JsonValue*, Responder r) { later = r; });
    h.rpc->on_notification("note", [&](const JsonValue*) { ++notified; });
    h.rpc->start();
    h.agent->send_line(R"([{"jsonrpc":"2.0","id":1,"method":"now"},{"jsonrpc":"2.0","method":"note"},)"
                       R"({"jsonrpc":"2.0","id":2,"method":"later"},{"jsonrpc":"2.0","id":3,"method":"nope"}])");
    REQUIRE(h.loop.run_until([&] { return later.has_value(); }));
    h.loop.run_for(std::chrono::milliseconds(20));
    CHECK(h.agent->lines.empty());  // waits for every request member
    later->respond(nullptr);
    later.reset();
    REQUIRE(h.wait_lines(1));
    auto reply = h.agent->parsed(0);
    REQUIRE(reply.IsArray());
    CHECK(reply.Size() == 3);
    CHECK(notified == 1);

    h.agent->send_line("[]");
    h.agent->send_line(R"([{"jsonrpc":"2.0","method":"note"}])");
    REQUIRE(h.wait_lines(2));
    h.loop.run_for(std::chrono::milliseconds(20));
    CHECK(h.agent->lines.size() == 2);
    CHECK(h.agent->parsed(1)["error"]["code"].GetInt() == -32600);
    CHECK(notified == 2);
}

TEST_CASE("connection: cancelling a pending request sends $/cancel_request and completes it once, later") {
    Harness h;
    h.rpc->start();
    int calls = 0;
    std::optional<acp::Status> status;
    int64_t id = h.rpc->send_request("session/prompt", nullptr, [&](const Reply& r) {
        ++calls;
        status = r.status;
    });
    CHECK(h.rpc->cancel_request(id));
    CHECK(calls == 0);  // never inside the call that caused it
    CHECK_FALSE(h.rpc->cancel_request(id));
    REQUIRE(h.wait_lines(2));
    CHECK(h.agent->lines[1] ==
          R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":)" + std::to_string(id) + "}}");
    REQUIRE(h.loop.run_until([&] { return calls == 1; }));
    CHECK(status->code() == Errc::cancelled);
    // The agent's late answer is dropped quietly.
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"error":{"code":-32800,"message":"cancelled"}})");
    h.loop.run_until([&] { return h.logged("late response"); });
    CHECK(h.logged("late response"));
    CHECK(calls == 1);
}

TEST_CASE("connection: an incoming $/cancel_request reaches the handler of the request it names") {
    Harness h;
    std::optional<Responder> held;
    int cancels = 0;
    h.rpc->on_request("session/request_permission", [&](const JsonValue*, Responder r) {
        r.on_cancel([&cancels, r] {
            ++cancels;
            // CLIENT-MUST-10: still exactly one answer, here the method's cancelled result.
            r.respond([](JsonWriter& w) {
                w.StartObject();
                w.Key("outcome");
                w.StartObject();
                w.Key("outcome");
                w.String("cancelled");
                w.EndObject();
                w.EndObject();
            });
        });
        held = r;
    });
    h.rpc->start();
    int64_t ours = h.rpc->send_request("session/prompt", nullptr, [](const Reply&) {});
    h.agent->send_line(R"({"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{}})");
    REQUIRE(h.loop.run_until([&] { return held.has_value(); }));
    // CLIENT-MUST-12: the agent's cancel only names requests the agent sent; our own
    // request with the same number is untouched.
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":)" + std::to_string(ours) +
                       "}}");
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p1"}})");
    REQUIRE(h.loop.run_until([&] { return cancels == 1; }));
    // CLIENT-MUST-11: a repeated cancel and one for an unknown id are ignored.
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p1"}})");
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"zzz"}})");
    h.loop.run_for(std::chrono::milliseconds(30));
    held.reset();
    h.loop.run_for(std::chrono::milliseconds(10));
    CHECK(cancels == 1);
    CHECK(h.rpc->pending_requests() == 1);
    // Our own prompt request, then exactly one answer to p1.
    REQUIRE(h.agent->lines.size() == 2);
    CHECK(h.agent->lines[1] == R"({"jsonrpc":"2.0","id":"p1","result":{"outcome":{"outcome":"cancelled"}}})");
}

TEST_CASE("connection: a timed-out request completes once with timed_out and tells the agent") {
    Harness h;
    h.rpc->start();
    int calls = 0;
    std::optional<acp::Status> status;
    RequestOptions options;
    options.timeout = std::chrono::milliseconds(30);
    int64_t id = h.rpc->send_request(
        "slow", nullptr,
        [&](const Reply& r) {
            ++calls;
            status = r.status;
        },
        options);
    REQUIRE(h.loop.run_until([&] { return calls == 1; }));
    CHECK(status->code() == Errc::timed_out);
    REQUIRE(h.wait_lines(2));
    CHECK(h.agent->parsed(1)["method"] == "$/cancel_request");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{}})");
    h.loop.run_for(std::chrono::milliseconds(30));
    CHECK(calls == 1);
}

TEST_CASE("connection: closing completes every pending request with connection_closed") {
    Harness h;
    h.rpc->start();
    std::vector<Errc> outcomes;
    std::optional<acp::Status> closed_with;
    h.rpc->on_closed([&](const acp::Status& why) { closed_with = why; });
    h.rpc->send_request("a", nullptr, [&](const Reply& r) { outcomes.push_back(r.status.code()); });
    h.rpc->send_request("b", nullptr, [&](const Reply& r) { outcomes.push_back(r.status.code()); });
    h.rpc->close();
    CHECK(outcomes.empty());
    REQUIRE(h.loop.run_until([&] { return closed_with.has_value(); }));
    CHECK(outcomes == std::vector<Errc>{Errc::connection_closed, Errc::connection_closed});
    CHECK(h.rpc->is_closed());
    // A request after the close completes too, on a later turn.
    bool late = false;
    h.rpc->send_request("c", nullptr, [&](const Reply& r) { late = r.status.code() == Errc::connection_closed; });
    CHECK_FALSE(late);
    CHECK(h.loop.run_until([&] { return late; }));
}

TEST_CASE("connection: a callback may close the connection or send more from inside") {
    Harness h;
    h.rpc->start();
    bool second_done = false;
    int64_t id = h.rpc->send_request("first", nullptr, [&](const Reply&) {
        h.rpc->send_request("second", nullptr,
                            [&](const Reply& r) { second_done = r.status.code() == Errc::connection_closed; });
        h.rpc->close();
    });
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{}})");
    CHECK(h.loop.run_until([&] { return second_done; }));
}

TEST_CASE("connection: an oversized response fails its request - the connection keeps working") {
    ConnectionOptions options;
    options.max_line_bytes = 256;
    Harness h(options);
    h.rpc->start();
    std::optional<acp::Status> big;
    bool small_ok = false;
    int64_t big_id = h.rpc->send_request("big", nullptr, [&](const Reply& r) { big = r.status; });
    int64_t small_id = h.rpc->send_request("small", nullptr, [&](const Reply& r) { small_ok = r.status.ok(); });
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(big_id) + R"(,"result":{"text":")" +
                       std::string(10000, 'z') + "\"}}");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(small_id) + R"(,"result":{}})");
    REQUIRE(h.loop.run_until([&] { return big.has_value() && small_ok; }));
    CHECK(big->code() == Errc::protocol_error);
    CHECK(h.logged("over the limit of 256 bytes"));
    // An oversized request is answered, so the agent does not wait either.
    h.agent->send_line(R"({"jsonrpc":"2.0","id":5,"method":"x","params":{"p":")" + std::string(1000, 'q') + "\"}}");
    REQUIRE(h.wait_lines(3));
    CHECK(h.agent->parsed(2)["id"].GetInt() == 5);
    CHECK(h.agent->parsed(2)["error"]["code"].GetInt() == -32600);
}

TEST_CASE("connection: the traffic observer sees both directions, with MCP secrets redacted") {
    Harness h;
    std::vector<std::pair<Direction, std::string>> seen;
    h.rpc->set_traffic_observer([&](Direction d, std::string_view line, std::chrono::system_clock::time_point when) {
        CHECK(when.time_since_epoch().count() > 0);
        seen.emplace_back(d, std::string(line));
    });
    h.rpc->start();
    const std::string params =
        R"({"cwd":"/p","mcpServers":[{"type":"stdio","name":"db","command":"/bin/db","env":[{"name":"TOKEN","value":"s3cret"}]},)"
        R"({"type":"http","name":"web","url":"https://x","headers":[{"name":"Authorization","value":"Bearer abc"}]}]})";
    h.rpc->send_request(
        "session/new", [&](JsonWriter& w) { w.RawValue(params.data(), params.size(), rapidjson::kObjectType); },
        [](const Reply&) {});
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"note"})");
    REQUIRE(h.loop.run_until([&] { return seen.size() == 2; }));
    CHECK(seen[0].first == Direction::outgoing);
    CHECK(seen[0].second.find("s3cret") == std::string::npos);
    CHECK(seen[0].second.find("Bearer abc") == std::string::npos);
    CHECK(seen[0].second.find("\"TOKEN\"") != std::string::npos);  // names stay visible
    CHECK(seen[0].second.find("[redacted]") != std::string::npos);
    CHECK(seen[1] == std::make_pair(Direction::incoming, std::string(R"({"jsonrpc":"2.0","method":"note"})")));
    // The wire itself carries the real values.
    REQUIRE(h.wait_lines(1));
    CHECK(h.agent->lines[0].find("s3cret") != std::string::npos);

    // Opting out shows the secrets.
    seen.clear();
    h.rpc->set_traffic_observer([&](Direction d, std::string_view line,
                                    std::chrono::system_clock::time_point) { seen.emplace_back(d, std::string(line)); },
                                /*redact=*/false);
    h.rpc->send_request(
        "session/new", [&](JsonWriter& w) { w.RawValue(params.data(), params.size(), rapidjson::kObjectType); },
        [](const Reply&) {});
    REQUIRE(!seen.empty());
    CHECK(seen[0].second.find("s3cret") != std::string::npos);
}

TEST_CASE("connection: the traffic observer sees the agent's secrets redacted too, the handler the real ones") {
    Harness h;
    std::vector<std::string> seen;
    std::string handled;
    h.rpc->on_notification("note", [&](const JsonValue* params) { handled = to_json_text(*params); });
    h.rpc->set_traffic_observer([&](Direction d, std::string_view line, std::chrono::system_clock::time_point) {
        if (d == Direction::incoming) seen.emplace_back(line);
    });
    h.rpc->start();
    // An agent echoing a config, or putting its own credentials into _meta.
    h.agent->send_line(
        R"({"jsonrpc":"2.0","method":"note","params":{"_meta":{"authToken":"s3cret1"},)"
        R"("mcpServers":[{"name":"m","command":"/bin/m","args":["--token","s3cret2"],"env":[{"name":"K","value":"s3cret3"}]}]}})");
    REQUIRE(h.loop.run_until([&] { return !handled.empty(); }));
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].find("s3cret") == std::string::npos);
    CHECK(seen[0].find(R"("authToken":"[redacted]")") != std::string::npos);
    CHECK(handled.find("s3cret1") != std::string::npos);
    CHECK(handled.find("s3cret2") != std::string::npos);
}

TEST_CASE("connection: a reused incoming id is refused while the first request is open") {
    Harness h;
    std::optional<Responder> held;
    h.rpc->on_request("ask", [&](const JsonValue*, Responder r) { held = r; });
    h.rpc->start();
    h.agent->send_line(R"({"jsonrpc":"2.0","id":4,"method":"ask"})");
    h.agent->send_line(R"({"jsonrpc":"2.0","id":4,"method":"ask"})");
    REQUIRE(h.wait_lines(1));
    CHECK(h.agent->parsed(0)["error"]["code"].GetInt() == -32600);
    held->respond(nullptr);
    REQUIRE(h.wait_lines(2));
    CHECK(h.agent->lines[1] == R"({"jsonrpc":"2.0","id":4,"result":{}})");
}

TEST_CASE("connection: a host may destroy the connection from inside any callback") {
    SUBCASE("from a reply handler, while other requests are pending") {
        Harness h;
        h.rpc->start();
        int calls = 0;
        for (int i = 0; i < 3; ++i) {
            h.rpc->send_request("x", nullptr, [&](const Reply&) {
                ++calls;
                h.rpc.reset();  // pending requests are dropped, not completed
            });
        }
        h.agent->close();
        h.loop.run_for(std::chrono::milliseconds(50));
        CHECK(calls == 1);
    }
    SUBCASE("from the closed handler") {
        Harness h;
        bool closed = false;
        h.rpc->on_closed([&](const acp::Status&) {
            closed = true;
            h.rpc.reset();
        });
        h.rpc->start();
        h.agent->close();
        CHECK(h.loop.run_until([&] { return closed; }));
        CHECK_FALSE(h.rpc.has_value());
    }
    SUBCASE("from the traffic observer, with more lines in the same read") {
        Harness h;
        int seen = 0;
        h.rpc->set_traffic_observer([&](Direction, std::string_view, std::chrono::system_clock::time_point) {
            ++seen;
            h.rpc.reset();
        });
        h.rpc->start();
        h.agent->send(R"({"jsonrpc":"2.0","method":"a"})"
                      "\n"
                      R"({"jsonrpc":"2.0","method":"b"})"
                      "\n");
        CHECK(h.loop.run_until([&] { return !h.rpc.has_value(); }));
        h.loop.run_for(std::chrono::milliseconds(20));
        CHECK(seen == 1);
    }
    SUBCASE("from a notification handler") {
        Harness h;
        h.rpc->on_notification("bye", [&](const JsonValue*) { h.rpc.reset(); });
        h.rpc->start();
        h.agent->send_line(R"({"jsonrpc":"2.0","method":"bye"})");
        CHECK(h.loop.run_until([&] { return !h.rpc.has_value(); }));
    }
}

TEST_CASE("connection: absurdly deep nesting is refused as malformed, without exhausting the stack") {
    Harness h;
    h.rpc->start();
    std::optional<acp::Status> status;
    int64_t id = h.rpc->send_request("x", nullptr, [&](const Reply& r) { status = r.status; });
    const int depth = 200000;
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"error":{"code":1,"message":"m","data":)" + std::string(depth, '[') +
                       std::string(depth, ']') + "}}");
    REQUIRE(h.loop.run_until([&] { return status.has_value(); }));
    CHECK(status->code() == Errc::protocol_error);  // its id was recovered from the head
    CHECK(h.logged("nested deeper than 128 levels"));
    // Nesting within the limit is fine.
    bool ok = false;
    id = h.rpc->send_request("y", nullptr, [&](const Reply& r) { ok = r.status.ok(); });
    h.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"d":)" + std::string(100, '[') +
                       std::string(100, ']') + "}}");
    CHECK(h.loop.run_until([&] { return ok; }));
}

TEST_CASE("connection: a params writer that throws fails its request instead of sending half a message") {
    Harness h;
    h.rpc->start();
    std::optional<acp::Status> status;
    h.rpc->send_request(
        "x", [](JsonWriter&) { throw std::runtime_error("encoder bug"); }, [&](const Reply& r) { status = r.status; });
    CHECK_FALSE(status.has_value());
    REQUIRE(h.loop.run_until([&] { return status.has_value(); }));
    CHECK(status->code() == Errc::internal);
    CHECK(status->message().find("encoder bug") != std::string::npos);
    CHECK(h.rpc->pending_requests() == 0);
    h.loop.run_for(std::chrono::milliseconds(20));
    CHECK(h.agent->lines.empty());
}
