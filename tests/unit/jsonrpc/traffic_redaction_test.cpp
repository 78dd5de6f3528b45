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
