// SPDX-License-Identifier: Apache-2.0
// An in-process ACP agent for benchmarks: a thread speaking NDJSON over two pipes, which
// the client adopts (acp_client_adopt / Client::adopt), so every byte takes the real path
// (transport, framer, JSON-RPC, client, session model). It answers initialize,
// session/new and session/prompt; the prompt's text picks what it streams:
//   "history N"   N turns of history (a user message and an agent reply each)
//   "reply B C"   one agent message of B bytes in chunks of C bytes
// and every turn ends with an idle state (end_turn).
#pragma once

#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "request_reader.hpp"

namespace acp::bench {

class StreamingAgent {
public:
    StreamingAgent() {
        if (::pipe(to_agent_) != 0 || ::pipe(from_agent_) != 0) std::abort();
        thread_ = std::thread([this] { serve(); });
    }
    ~StreamingAgent() {
        thread_.join();  // ends when the client closes its end
        ::close(to_agent_[0]);
    }
    StreamingAgent(const StreamingAgent&) = delete;
    StreamingAgent& operator=(const StreamingAgent&) = delete;

    // The client's ends; it owns and closes them.
    int client_read_fd() const { return from_agent_[0]; }
    int client_write_fd() const { return to_agent_[1]; }

private:
    void send(const std::string& line) {
        std::string out = line + "\n";
        std::size_t done = 0;
        while (done < out.size()) {
            ssize_t n = ::write(from_agent_[1], out.data() + done, out.size() - done);
            if (n <= 0) return;  // the client went away
            done += static_cast<std::size_t>(n);
        }
    }

    void update(const std::string& body) {
        send(R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":)" + body + "}}");
    }

    void turn(const std::string& text) {
        update(R"({"sessionUpdate":"state_update","state":"running"})");
        if (text.rfind("history ", 0) == 0) {
            const int turns = std::atoi(text.c_str() + 8);
            for (int i = 0; i < turns; ++i) {
                const std::string n = std::to_string(i);
                update(R"({"sessionUpdate":"user_message","messageId":"hu)" + n +
                       R"(","content":[{"type":"text","text":"question )" + n + R"("}]})");
                update(R"({"sessionUpdate":"agent_message_chunk","messageId":"hm)" + n +
                       R"(","content":{"type":"text","text":"an answer of some length to question )" + n + R"("}})");
            }
        } else if (text.rfind("reply ", 0) == 0) {
            std::size_t bytes = 0;
            std::size_t chunk = 0;
            std::sscanf(text.c_str(), "reply %zu %zu", &bytes, &chunk);
            const std::string piece(chunk, 'x');
            for (std::size_t sent = 0; sent < bytes; sent += chunk) {
                update(
                    R"({"sessionUpdate":"agent_message_chunk","messageId":"reply","content":{"type":"text","text":")" +
                    piece + R"("}})");
            }
        }
        update(R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})");
    }

    void answer(const rapidjson::Document& request) {
        const std::string id = std::to_string(request["id"].GetInt64());
        const std::string method = request["method"].GetString();
        if (method == "initialize") {
            send(
                R"({"jsonrpc":"2.0","id":)" + id +
                R"(,"result":{"protocolVersion":2,"info":{"name":"bench-agent","version":"1.0"},"capabilities":{"session":{}}}})");
        } else if (method == "session/new") {
            send(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"sessionId":"s1"}})");
        } else if (method == "session/prompt") {
            const auto& prompt = request["params"]["prompt"];
            const std::string text = prompt.Size() > 0 ? prompt[0]["text"].GetString() : "";
            send(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"messageId":"u)" + id + R"("}})");
            turn(text);
        } else {
            send(R"({"jsonrpc":"2.0","id":)" + id + R"(,"error":{"code":-32601,"message":"not in the bench agent"}})");
        }
    }

    void serve() {
        ::bench::read_requests(to_agent_[0], [this](const rapidjson::Document& request) { answer(request); });
        ::close(from_agent_[1]);  // the agent leaves: the client sees its output end
    }

    int to_agent_[2];
    int from_agent_[2];
    std::thread thread_;
};

}  // namespace acp::bench
