// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "jsonrpc/traffic_redaction.hpp"

using acp::detail::contains_secrets;
using acp::detail::redact_secrets;

TEST_CASE("redaction: hides MCP env and header values wherever mcpServers appears, keeps the rest") {
    const std::string line =
        R"({"jsonrpc":"2.0","id":1,"method":"session/resume","params":{"sessionId":"s","cwd":"/p","mcpServers":[)"
        R"({"type":"stdio","name":"a","command":"/bin/a","args":["--value","visible"],"env":[{"name":"K","value":"secret1"}]},)"
        R"({"type":"http","name":"b","url":"https://b","headers":[{"name":"H","value":"secret2"},{"name":"I"}]},)"
        R"({"type":"_custom","name":"c"}]}})";
    REQUIRE(contains_secrets(line));
    const std::string shown = redact_secrets(line);
    CHECK(shown.find("secret1") == std::string::npos);
    CHECK(shown.find("secret2") == std::string::npos);
    CHECK(shown.find(R"({"name":"K","value":"[redacted]"})") != std::string::npos);
    CHECK(shown.find(R"({"name":"H","value":"[redacted]"})") != std::string::npos);
    CHECK(shown.find(R"("args":["--value","visible"])") != std::string::npos);
    CHECK(shown.find(R"("sessionId":"s")") != std::string::npos);
}

TEST_CASE("redaction: lines without MCP servers are not touched") {
    CHECK_FALSE(contains_secrets(R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}})"));
    CHECK(redact_secrets("not json \"mcpServers\"") == "not json \"mcpServers\"");
}

TEST_CASE("redaction: stdio MCP args after a secret-looking flag, and --flag=VALUE forms, are hidden") {
    const std::string line =
        R"({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[{"name":"a","command":"/bin/a",)"
        R"("args":["--api-key","s3cr3t-a","--TOKEN","-s3cr3t-b","--password=s3cr3t-c","--verbose","--port","8080",)"
        R"("--Authorization","s3cr3t-d","--client-secret","s3cr3t-e","GITHUB_TOKEN=s3cr3t-f","plain"],"env":[]}]}})";
    REQUIRE(contains_secrets(line));
    const std::string shown = redact_secrets(line);
    CHECK(shown.find("s3cr3t") == std::string::npos);
    CHECK(shown.find(R"("--api-key","[redacted]","--TOKEN","[redacted]","--password=[redacted]")") !=
          std::string::npos);
    // Flags whose name says nothing secret keep their values: a log still shows how the
    // server was started.
    CHECK(shown.find(R"("--verbose","--port","8080")") != std::string::npos);
    CHECK(shown.find(R"("GITHUB_TOKEN=[redacted]","plain"])") != std::string::npos);
}

TEST_CASE("redaction: HTTP/SSE MCP URLs lose userinfo, query values and fragment, keep host and path") {
    const std::string line =
        R"({"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/p","mcpServers":[)"
        R"({"type":"http","name":"h","url":"https://user:pw-s3cr3t@mcp.example.com:8443/v1/mcp?key=s3cr3t1&mode=x#tok-s3cr3t","headers":[]},)"
        R"({"type":"sse","name":"s","url":"http://mcp.example.com/sse?s3cr3t2","headers":[]}]}})";
    const std::string shown = redact_secrets(line);
    CHECK(shown.find("s3cr3t") == std::string::npos);
    CHECK(shown.find(R"("https://[redacted]@mcp.example.com:8443/v1/mcp?key=[redacted]&mode=[redacted]#[redacted]")") !=
          std::string::npos);
    CHECK(shown.find(R"("http://mcp.example.com/sse?[redacted]")") != std::string::npos);
}

TEST_CASE("redaction: URLs without secrets are unchanged") {
    CHECK(acp::detail::redact_url("https://mcp.example.com/v1/mcp") == "https://mcp.example.com/v1/mcp");
    CHECK(acp::detail::redact_url("http://h/a@b") == "http://h/a@b");  // '@' in the path is no userinfo
    CHECK(acp::detail::redact_url("not a url") == "not a url");
}

TEST_CASE("redaction: secret-looking _meta members at any depth, in any message, case-insensitively") {
    const std::string line =
        R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk",)"
        R"("content":{"type":"text","text":"hello"},"_meta":{"vendor":{"AccessToken":"s3cr3t1","apiKey":{"v":"s3cr3t2"},)"
        R"("list":[{"Authorization":"Bearer s3cr3t3"}]},"traceId":"t-1","x-Password":"s3cr3t4","session_cookie":"s3cr3t5"}},)"
        R"("_meta":{"clientSecret":"s3cr3t6"}}})";
    REQUIRE(contains_secrets(line));
    const std::string shown = redact_secrets(line);
    CHECK(shown.find("s3cr3t") == std::string::npos);
    CHECK(shown.find(R"("AccessToken":"[redacted]")") != std::string::npos);
    CHECK(shown.find(R"("apiKey":"[redacted]")") != std::string::npos);
    CHECK(shown.find(R"("traceId":"t-1")") != std::string::npos);
    CHECK(shown.find(R"("text":"hello")") != std::string::npos);
}

TEST_CASE("redaction: a member named like a secret outside _meta and mcpServers is protocol data, kept") {
    // A tool call's title or a config option's id may say "token": only _meta is free-form.
    const std::string line = R"({"jsonrpc":"2.0","id":1,"result":{"token":"visible","_meta":{}}})";
    CHECK(redact_secrets(line).find(R"("token":"visible")") != std::string::npos);
}

TEST_CASE("redaction: the secret-name rule") {
    for (const char* name : {"token", "API_KEY", "x-api-key", "Secret", "password", "passwd", "Authorization", "oauth",
                             "credentials", "Cookie"}) {
        CHECK_MESSAGE(acp::detail::looks_secret_name(name), name);
    }
    for (const char* name : {"verbose", "port", "traceId", "model", "cwd"}) {
        CHECK_FALSE_MESSAGE(acp::detail::looks_secret_name(name), name);
    }
}

TEST_CASE("redaction: the head of a line that cannot be parsed is withheld when it may hold secrets") {
    // An oversized or malformed line cannot be walked: its first bytes, as the log and the
    // observer would show them, are dropped when they name mcpServers or _meta.
    const std::string broken =
        R"({"jsonrpc":"2.0","id":1,"result":{"mcpServers":[{"env":[{"name":"K","value":"s3cr3t")";
    CHECK(acp::detail::loggable_head(broken, 200).find("s3cr3t") == std::string::npos);
    CHECK(acp::detail::loggable_head(R"({"_meta":{"token":"s3cr3t")", 200).find("s3cr3t") == std::string::npos);
    CHECK(acp::detail::loggable_head(R"({"jsonrpc":"2.0","id":1,"result":{"text":"ab)", 10) == R"({"jsonrpc")");
}

TEST_CASE("redaction: the head of a line that cannot be parsed shows control bytes and broken UTF-8 as escapes") {
    // A hostile agent's terminal escapes, NUL and invalid bytes never reach a log as they are.
    CHECK(acp::detail::loggable_head(std::string("a\x1b[2J\x00"
                                                 "b\xff\x07",
                                                 9),
                                     200) == "a\\x1b[2J\\x00b\\xff\\x07");
    CHECK(acp::detail::loggable_head("caf\xc3\xa9 \xe2\x9c\x93", 200) == "caf\xc3\xa9 \xe2\x9c\x93");  // UTF-8 stays
    CHECK(acp::detail::loggable_head("\xc0\xaf", 200) == "\\xc0\\xaf");                                // overlong
    CHECK(acp::detail::loggable_head("ab\xe2\x9c", 200) == "ab\\xe2\\x9c");  // cut inside a character
}
