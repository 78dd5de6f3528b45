// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/remote_url.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "transport/message_lines.hpp"
#include "transport/remote/message_facts.hpp"

using acp::detail::parse_remote_url;
using acp::detail::RemoteKind;

TEST_CASE("remote url: scheme picks the transport and the default port") {
    auto ws = parse_remote_url("ws://example.com/acp");
    REQUIRE(ws.ok());
    CHECK(ws->kind == RemoteKind::websocket);
    CHECK_FALSE(ws->tls);
    CHECK(ws->port == 80);
    CHECK(ws->path == "/acp");
    auto https = parse_remote_url("HTTPS://[::1]:8443");
    REQUIRE(https.ok());
    CHECK(https->kind == RemoteKind::http);
    CHECK(https->tls);
    CHECK(https->host == "::1");
    CHECK(https->port == 8443);
    CHECK(https->path == "/");
    CHECK(https->redacted == "https://[::1]:8443/");
}

TEST_CASE("remote url: the logged form has no credentials and no query") {
    auto url = parse_remote_url("wss://user:hunter2@agents.example:9000/acp?token=abc#frag");
    REQUIRE(url.ok());
    CHECK(url->host == "agents.example");
    CHECK(url->path == "/acp?token=abc");
    CHECK(url->redacted == "wss://agents.example:9000/acp");
    CHECK(url->redacted.find("hunter2") == std::string::npos);
}

TEST_CASE("remote url: other schemes and malformed URLs are refused") {
    CHECK(parse_remote_url("ftp://x/").status().code() == acp::Errc::unsupported);
    CHECK(parse_remote_url("/tmp/agent.sock").status().code() == acp::Errc::unsupported);
    CHECK(parse_remote_url("http:///acp").status().code() == acp::Errc::invalid_argument);
    CHECK(parse_remote_url("http://host:99999/").status().code() == acp::Errc::invalid_argument);
    CHECK(parse_remote_url("http://host:12ab/").status().code() == acp::Errc::invalid_argument);
    CHECK(parse_remote_url("http://[::1/").status().code() == acp::Errc::invalid_argument);
}

TEST_CASE("message lines: outgoing lines split into messages and line breaks in incoming ones flattened") {
    std::string partial;
    std::vector<std::string> messages;
    auto collect = [&](std::string m) { messages.push_back(std::move(m)); };
    acp::detail::split_outgoing_lines(partial, "{\"a\":1}\n{\"b\"", collect);
    acp::detail::split_outgoing_lines(partial, ":2}\r\n\n", collect);
    CHECK(messages == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"});
    CHECK(partial.empty());

    std::string pretty = "{\n  \"a\": 1\r\n}";
    acp::detail::flatten_line_breaks(pretty.data(), pretty.size());
    CHECK(pretty == "{\t  \"a\": 1\t\t}");
}

TEST_CASE("message facts: the kind and id and session of requests and notifications and responses") {
    auto request = acp::detail::inspect_message(
        R"({"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"sess-1"}})");
    CHECK(request.is_request);
    CHECK(request.method == "session/prompt");
    CHECK(request.id_key == "n:7");
    CHECK(request.id_json == "7");
    CHECK(request.params_session == "sess-1");

    auto response = acp::detail::inspect_message(R"({"jsonrpc":"2.0","id":"x","result":{"sessionId":"sess-2"}})");
    CHECK(response.is_response);
    CHECK(response.id_key == "s:x");
    CHECK(response.id_json == "\"x\"");
    CHECK(response.result_session == "sess-2");
    // A string id "7" and a number 7 are different ids.
    CHECK(response.id_key != request.id_key);

    auto notification =
        acp::detail::inspect_message(R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":5}})");
    CHECK(notification.is_notification);
    CHECK(notification.params_session.empty());  // not a string: no session

    auto junk = acp::detail::inspect_message("[1,2]");
    CHECK_FALSE(junk.is_request);
    CHECK_FALSE(junk.is_response);
    CHECK_FALSE(junk.is_notification);
    CHECK_FALSE(acp::detail::may_carry_id(R"({"method":"session/update","params":{"text":"identity"}})"));
    CHECK(acp::detail::may_carry_id(R"({"id":1})"));
}
