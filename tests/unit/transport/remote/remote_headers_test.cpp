// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/remote_headers.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using acp::detail::header_secrets;
using acp::detail::redacting_sink;
using acp::detail::without_secrets;

TEST_CASE("remote headers: a value and the token after its scheme are kept out of text") {
    auto secrets = header_secrets({{"Authorization", "Bearer abc123xyz"}, {"X-Tenant", "acme-corp"}, {"X-Debug", "1"}});
    CHECK(without_secrets("sent Authorization: Bearer abc123xyz", secrets) == "sent Authorization: [redacted]");
    CHECK(without_secrets("token=abc123xyz; tenant acme-corp", secrets) == "token=[redacted]; tenant [redacted]");
    // Short values (and a scheme alone) would redact ordinary words: they stay.
    CHECK(without_secrets("Bearer 1 of 1", secrets) == "Bearer 1 of 1");
    CHECK(without_secrets("abc123xyzabc123xyz", secrets) == "[redacted][redacted]");
}

TEST_CASE("remote headers: the redacting log sink hands the host records without the values") {
    std::vector<std::string> seen;
    acp::LogSink host = [&seen](const acp::LogRecord& r) { seen.emplace_back(r.message); };
    acp::LogSink sink = redacting_sink(host, header_secrets({{"Authorization", "Bearer s3cr3t-value"}}));
    sink(acp::LogRecord{acp::LogLevel::error, "jsonrpc", "malformed: Authorization: Bearer s3cr3t-value |"});
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] == "malformed: Authorization: [redacted] |");
    CHECK_FALSE(redacting_sink(nullptr, header_secrets({{"A", "long-enough"}})));
}
