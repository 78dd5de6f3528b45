// SPDX-License-Identifier: Apache-2.0
// The benchmark agents' input side: reads NDJSON from fd until it ends and hands every
// request (an object with an integer id and a string method) to on_request. Whatever
// else arrives (the client's notifications, its answers) is not the benchmarks' concern.
#pragma once

#include <rapidjson/document.h>
#include <unistd.h>

#include <string>

namespace bench {

template <class OnRequest>
void read_requests(int fd, OnRequest&& on_request) {
    std::string buffer;
    char chunk[4096];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<std::size_t>(n));
        for (std::size_t end; (end = buffer.find('\n')) != std::string::npos;) {
            rapidjson::Document message;
            message.Parse(buffer.c_str(), end);
            buffer.erase(0, end + 1);
            if (!message.HasParseError() && message.IsObject() && message.HasMember("id") &&
                message.HasMember("method") && message["id"].IsInt64() && message["method"].IsString()) {
                on_request(static_cast<const rapidjson::Document&>(message));
            }
        }
    }
}

}  // namespace bench
