// SPDX-License-Identifier: Apache-2.0
// An honest agent written the simplest way: one thread, blocking writes, and its stdin
// read only between writes. For tests/hostile/backpressure_test.cpp.
//
// ACP v2 over stdin/stdout, no libacp. It answers initialize and session/new (sessions
// "s1", "s2", ...). Every prompt is answered, its user message recorded in short, and its
// turn runs (state running ... idle, end_turn). A prompt whose text is "stream N B" starts a turn of N agent message
// chunks of B bytes each; after each chunk (a blocking write) it reads what its stdin
// holds at that moment (one read, no wait) and handles the complete messages in it, so a
// prompt for another session arriving meanwhile is taken in piece by piece between the
// chunks. Any other prompt ends its turn at once with one chunk, "received N bytes",
// N the length of the prompt's text. With a client that stops reading the agent while
// it writes, the agent blocks in its write and reads nothing more.
//
//   acp_sync_agent
#include <poll.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr std::size_t kReadBytes = 64 * 1024;

void write_all(const std::string& out) {
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, out.data() + done, out.size() - done);
        if (n <= 0) std::exit(0);  // the client went away
        done += static_cast<std::size_t>(n);
    }
}

std::string update(const std::string& session, const std::string& body) {
    return R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":")" + session + R"(","update":)" + body +
           "}}\n";
}

std::string chunk(const std::string& session, const std::string& message_id, const std::string& text) {
    return update(session, R"({"sessionUpdate":"agent_message_chunk","messageId":")" + message_id +
                               R"(","content":{"type":"text","text":")" + text + R"("}})");
}

class Agent {
public:
    // Blocks until stdin has something; false at its end.
    bool read_blocking() { return read_once(-1); }

    // Handles every complete message read so far.
    void handle_lines() {
        for (std::size_t end; (end = input_.find('\n', scanned_)) != std::string::npos;) {
            // Taken off before handling: a stream reads more into input_ while it runs.
            std::string line = input_.substr(0, end);
            input_.erase(0, end + 1);
            scanned_ = 0;
            handle(line);
        }
        scanned_ = input_.size();  // a long line is searched once, not on every read
    }

private:
    // One read of what stdin holds, waiting at most timeout_ms (-1: forever).
    bool read_once(int timeout_ms) {
        pollfd in{STDIN_FILENO, POLLIN, 0};
        if (::poll(&in, 1, timeout_ms) <= 0) return true;
        char buffer[kReadBytes];
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n <= 0) return false;
        input_.append(buffer, static_cast<std::size_t>(n));
        return true;
    }

    void handle(const std::string& line) {
        rapidjson::Document message;
        message.Parse(line.c_str(), line.size());
        if (message.HasParseError() || !message.IsObject() || !message.HasMember("method") ||
            !message["method"].IsString() || !message.HasMember("id") || !message["id"].IsInt64()) {
            return;  // notifications and answers: nothing to do
        }
        const std::string id = std::to_string(message["id"].GetInt64());
        const std::string method = message["method"].GetString();
        if (method == "initialize") {
            write_all(
                R"({"jsonrpc":"2.0","id":)" + id +
                R"(,"result":{"protocolVersion":2,"info":{"name":"sync-agent","version":"1.0"},"capabilities":{"session":{}}}})"
                "\n");
        } else if (method == "session/new") {
            write_all(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"sessionId":"s)" + std::to_string(++sessions_) +
                      R"("}})"
                      "\n");
        } else if (method == "session/prompt") {
            const auto& params = message["params"];
            const std::string session = params["sessionId"].GetString();
            const auto& prompt = params["prompt"];
            const auto& first = prompt[0];
            const std::string text(first["text"].GetString(), first["text"].GetStringLength());
            const std::string k = std::to_string(++prompts_);
            write_all(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"messageId":"u)" + k +
                      R"("}})"
                      "\n");
            // The user message the answer named (its text in short: it may be megabytes).
            write_all(update(session, R"({"sessionUpdate":"user_message_chunk","messageId":"u)" + k +
                                          R"(","content":{"type":"text","text":"a prompt of )" +
                                          std::to_string(text.size()) + R"( bytes"}})"));
            write_all(update(session, R"({"sessionUpdate":"state_update","state":"running"})"));
            long count = 0;
            long bytes = 0;
            if (std::sscanf(text.c_str(), "stream %ld %ld", &count, &bytes) == 2 && count > 0 && bytes > 0) {
                const std::string piece(static_cast<std::size_t>(bytes), 'x');
                for (long i = 0; i < count; ++i) {
                    write_all(chunk(session, "m" + k, piece));
                    if (!read_once(0)) std::exit(0);
                    handle_lines();
                }
            } else {
                write_all(chunk(session, "m" + k, "received " + std::to_string(text.size()) + " bytes"));
            }
            write_all(update(session, R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})"));
        } else {
            write_all(R"({"jsonrpc":"2.0","id":)" + id +
                      R"(,"error":{"code":-32601,"message":"not in the sync agent"}})"
                      "\n");
        }
    }

    std::string input_;
    std::size_t scanned_ = 0;  // input_ holds no line break before this
    int sessions_ = 0;
    int prompts_ = 0;
};

}  // namespace

int main() {
    Agent agent;
    while (agent.read_blocking()) agent.handle_lines();
    return 0;
}
