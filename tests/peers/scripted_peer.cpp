// SPDX-License-Identifier: Apache-2.0
// A misbehaving-on-demand JSON-RPC peer for the transport and connection tests.
//
// It is deliberately independent of libacp (plain blocking stdio, RapidJSON) so that the
// tests check libacp against something it did not build. Each request's method says what
// to do:
//
//   echo             answer with the params
//   delay            answer {"ms": N} after params.ms milliseconds
//   exit_now         exit with params.code at once, leaving the request unanswered
//   flood_stderr     write params.bytes bytes of text to stderr, then answer
//   garbage          write a non-JSON line, an oversized line of params.size bytes, a
//                    truncated object and a blank line, then answer normally
//   spawn_grandchild fork a process that sleeps in the same process group; answer {"pid"}
//   ignore_sigterm   ignore SIGTERM from now on; answer {}
//   call_client      send the client a request (params.method, params.params), then answer
//                    with whatever the client answered (result or error)
//   notify_client    send the client the notification params.method with params.params
//   getenv           answer {"value": <the variable params.name, or null>}
//   getcwd           answer {"cwd": <the working directory>}
//
// Flags: --ignore-stdin-eof keeps running after stdin ends (until killed);
//        --stderr-on-exit TEXT writes TEXT to stderr when stdin ends.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

namespace {

std::string to_text(const rapidjson::Value& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    return buffer.GetString();
}

void send_line(const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void answer(const rapidjson::Value& id, const std::string& result_json) {
    send_line("{\"jsonrpc\":\"2.0\",\"id\":" + to_text(id) + ",\"result\":" + result_json + "}");
}

int int_param(const rapidjson::Value* params, const char* key, int fallback) {
    if (params == nullptr || !params->IsObject()) return fallback;
    auto it = params->FindMember(key);
    return it != params->MemberEnd() && it->value.IsInt() ? it->value.GetInt() : fallback;
}

bool read_line(std::string& line) { return static_cast<bool>(std::getline(std::cin, line)); }

// Waits for the client's answer to our request id 1000+n, answering nothing else.
std::string await_client_answer(int my_id) {
    std::string line;
    while (read_line(line)) {
        rapidjson::Document message;
        message.Parse(line.c_str());
        if (message.HasParseError() || !message.IsObject()) continue;
        auto id = message.FindMember("id");
        if (id == message.MemberEnd() || !id->value.IsInt() || id->value.GetInt() != my_id) continue;
        if (message.HasMember("method")) continue;
        auto result = message.FindMember("result");
        if (result != message.MemberEnd()) return "{\"result\":" + to_text(result->value) + "}";
        auto error = message.FindMember("error");
        if (error != message.MemberEnd()) return "{\"error\":" + to_text(error->value) + "}";
    }
    return "{\"error\":\"stdin ended\"}";
}

}  // namespace

int main(int argc, char** argv) {
    bool ignore_stdin_eof = false;
    std::string stderr_on_exit;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--ignore-stdin-eof") == 0) ignore_stdin_eof = true;
        if (std::strcmp(argv[i], "--stderr-on-exit") == 0 && i + 1 < argc) stderr_on_exit = argv[++i];
    }
    int next_client_request = 1000;
    std::string line;
    while (read_line(line)) {
        rapidjson::Document message;
        message.Parse(line.c_str());
        if (message.HasParseError() || !message.IsObject() || !message.HasMember("method")) continue;
        const std::string method = message["method"].IsString() ? message["method"].GetString() : "";
        auto params_it = message.FindMember("params");
        const rapidjson::Value* params = params_it == message.MemberEnd() ? nullptr : &params_it->value;
        auto id_it = message.FindMember("id");
        if (id_it == message.MemberEnd()) continue;  // notifications need no answer here
        const rapidjson::Value& id = id_it->value;

        if (method == "echo") {
            answer(id, params ? to_text(*params) : "{}");
        } else if (method == "getenv") {
            const char* name = params && params->HasMember("name") && (*params)["name"].IsString()
                                   ? (*params)["name"].GetString()
                                   : "";
            const char* value = std::getenv(name);
            rapidjson::Value text;
            if (value != nullptr) text.SetString(rapidjson::StringRef(value));
            answer(id, std::string("{\"value\":") + (value ? to_text(text) : "null") + "}");
        } else if (method == "getcwd") {
            char buffer[4096];
            rapidjson::Value text;
            text.SetString(rapidjson::StringRef(getcwd(buffer, sizeof buffer) ? buffer : ""));
            answer(id, "{\"cwd\":" + to_text(text) + "}");
        } else if (method == "delay") {
            int ms = int_param(params, "ms", 0);
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            answer(id, "{\"ms\":" + std::to_string(ms) + "}");
        } else if (method == "exit_now") {
            std::fflush(stdout);
            std::fprintf(stderr, "scripted peer: exiting with code %d as asked\n", int_param(params, "code", 0));
            std::_Exit(int_param(params, "code", 0));
        } else if (method == "flood_stderr") {
            const int bytes = int_param(params, "bytes", 1 << 20);
            std::string chunk(99, 'e');
            chunk.push_back('\n');
            for (int written = 0; written < bytes; written += static_cast<int>(chunk.size())) {
                std::fwrite(chunk.data(), 1, chunk.size(), stderr);
            }
            std::fflush(stderr);
            answer(id, "{\"flooded\":" + std::to_string(bytes) + "}");
        } else if (method == "garbage") {
            send_line("this is not json");
            send_line(std::string(static_cast<std::size_t>(int_param(params, "size", 1 << 20)), 'x'));
            send_line("{\"jsonrpc\":\"2.0\",\"method\":\"broken\",");
            send_line("");
            answer(id, "{\"after_garbage\":true}");
        } else if (method == "spawn_grandchild") {
            pid_t child = fork();
            if (child == 0) {
                // The grandchild keeps the inherited pipes open, as careless tools do.
                for (;;) pause();
            }
            answer(id, "{\"pid\":" + std::to_string(child) + "}");
        } else if (method == "ignore_sigterm") {
            signal(SIGTERM, SIG_IGN);
            answer(id, "{}");
        } else if (method == "call_client") {
            const int my_id = next_client_request++;
            std::string inner_method = params && params->HasMember("method") && (*params)["method"].IsString()
                                           ? (*params)["method"].GetString()
                                           : "unknown";
            std::string inner_params =
                params && params->HasMember("params") ? to_text((*params)["params"]) : std::string("{}");
            send_line("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(my_id) + ",\"method\":\"" + inner_method +
                      "\",\"params\":" + inner_params + "}");
            answer(id, await_client_answer(my_id));
        } else if (method == "notify_client") {
            std::string inner_method = params && params->HasMember("method") && (*params)["method"].IsString()
                                           ? (*params)["method"].GetString()
                                           : "unknown";
            std::string inner_params =
                params && params->HasMember("params") ? to_text((*params)["params"]) : std::string("{}");
            send_line("{\"jsonrpc\":\"2.0\",\"method\":\"" + inner_method + "\",\"params\":" + inner_params + "}");
            answer(id, "{}");
        } else {
            send_line("{\"jsonrpc\":\"2.0\",\"id\":" + to_text(id) +
                      ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
        }
    }
    if (!stderr_on_exit.empty()) std::fprintf(stderr, "%s\n", stderr_on_exit.c_str());
    if (ignore_stdin_eof) {
        for (;;) pause();
    }
    return 0;
}
