// SPDX-License-Identifier: Apache-2.0
// A minimal ACP agent on stdin/stdout for bench/chat_bench.cpp: it answers initialize,
// session/new and session/prompt, then ends the turn. As cheap as it can be, so that the
// benchmark measures the client side. Prompts:
//   reply B C      one agent message of B bytes in chunks of C bytes (a newline every 64)
//   terminal B C   a tool call's display terminal: B bytes of output without a newline
//                  ('#' each) in chunks of C bytes, then its exit
//   images N       one agent message of N image chunks
#include <rapidjson/document.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "request_reader.hpp"

namespace {

std::string out;  // written in large blocks

void flush() {
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, out.data() + done, out.size() - done);
        if (n <= 0) std::_Exit(0);  // the client went away
        done += static_cast<std::size_t>(n);
    }
    out.clear();
}

void send(const std::string& line) {
    out += line;
    out += '\n';
    if (out.size() >= 1u << 16) flush();
}

void update(const std::string& body) {
    send(R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":)" + body + "}}");
}

std::string base64(const std::string& bytes) {
    static const char* const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string encoded;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
        std::uint32_t v = 0;
        for (std::size_t k = 0; k < 3; ++k) v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
        for (std::size_t k = 0; k < 4; ++k) encoded += k <= n ? digits[(v >> (18 - 6 * k)) & 63] : '=';
    }
    return encoded;
}

void terminal(std::size_t bytes, std::size_t chunk) {
    update(
        R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Print","kind":"execute","status":"in_progress",)"
        R"("content":[{"type":"terminal","terminalId":"t1"}]})");
    update(R"({"sessionUpdate":"terminal_update","terminalId":"t1","command":"print"})");
    std::string line;  // the chunk's update, the same for every chunk of the same size
    std::size_t line_size = 0;
    for (std::size_t sent = 0; sent < bytes; sent += chunk) {
        const std::size_t size = std::min(chunk, bytes - sent);
        if (size != line_size) {
            line_size = size;
            line = R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":")" +
                   base64(std::string(size, '#')) + R"("})";
        }
        update(line);
    }
    update(R"({"sessionUpdate":"terminal_update","terminalId":"t1","exitStatus":{"exitCode":0}})");
    update(R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"})");
}

void images(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        update(R"({"sessionUpdate":"agent_message_chunk","messageId":"reply","content":)"
               R"({"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}})");
    }
}

void turn(const std::string& text) {
    update(R"({"sessionUpdate":"state_update","state":"running"})");
    std::size_t bytes = 0;
    std::size_t chunk = 0;
    if (std::sscanf(text.c_str(), "terminal %zu %zu", &bytes, &chunk) == 2 && chunk > 0) {
        terminal(bytes, chunk);
    } else if (std::sscanf(text.c_str(), "images %zu", &bytes) == 1) {
        images(bytes);
    } else if (std::sscanf(text.c_str(), "reply %zu %zu", &bytes, &chunk) == 2 && chunk > 0) {
        const std::string head =
            R"({"sessionUpdate":"agent_message_chunk","messageId":"reply","content":{"type":"text","text":")";
        std::string line;  // the chunk's update, the same for every chunk of the same shape
        std::size_t line_size = 0, line_offset = 64;
        for (std::size_t sent = 0; sent < bytes; sent += chunk) {
            const std::size_t size = std::min(chunk, bytes - sent);
            if (size != line_size || sent % 64 != line_offset) {
                // Lines of text: every 64th byte a newline, so a terminal would scroll as usual.
                line_size = size;
                line_offset = sent % 64;
                line = head;
                for (std::size_t i = 0; i < size; ++i) line += (sent + i) % 64 == 63 ? "\\n" : "x";
                line += R"("}})";
            }
            update(line);
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
    flush();
}

}  // namespace

int main() {
    bench::read_requests(STDIN_FILENO, [](const rapidjson::Document& request) { answer(request); });
    return 0;
}
