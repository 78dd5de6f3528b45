// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "acp/status.hpp"
#include "acp/version.hpp"

TEST_CASE("status: success carries no detail and copies cheaply") {
    acp::Status ok;
    CHECK(ok.ok());
    CHECK(ok.code() == acp::Errc::ok);
    CHECK(ok.message().empty());
    CHECK(ok.to_string() == "ok");
    CHECK(ok.agent_exit() == nullptr);
}

TEST_CASE("status: protocol errors keep the JSON-RPC code and data apart from connection errors") {
    acp::Status rpc = acp::Status::rpc(-32002, "Resource not found", R"({"sessionId":"s-41"})");
    CHECK(rpc.code() == acp::Errc::rpc_error);
    CHECK(rpc.rpc_code() == -32002);
    CHECK(rpc.rpc_data_json() == R"({"sessionId":"s-41"})");
    CHECK(rpc.to_string() == "rpc_error -32002: Resource not found");

    acp::AgentExit exit;
    exit.exited = true;
    exit.exit_code = 3;
    exit.stderr_tail = "boom\n";
    acp::Status closed = acp::Status(acp::Errc::connection_closed, "agent exited").with_agent_exit(exit);
    REQUIRE(closed.agent_exit() != nullptr);
    CHECK(closed.agent_exit()->exit_code == 3);
    CHECK(closed.agent_exit()->stderr_tail == "boom\n");
    CHECK(closed.rpc_code() == 0);
}

TEST_CASE("result: holds a value or the status that explains its absence") {
    acp::Result<int> good = 42;
    CHECK(good.ok());
    CHECK(*good == 42);
    acp::Result<int> bad = acp::Status(acp::Errc::invalid_argument, "cwd must be absolute");
    CHECK_FALSE(bad.ok());
    CHECK(bad.status().code() == acp::Errc::invalid_argument);
}

TEST_CASE("version: headers and library agree") {
    CHECK(acp::version_major() == ACP_VERSION_MAJOR);
    CHECK(std::string(acp::version_string()) == ACP_VERSION_STRING);
}
