// SPDX-License-Identifier: Apache-2.0
// The far end of an in-memory transport, driven by hand: a test writes raw bytes as the
// agent and reads back, line by line, exactly what the connection sent.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <vector>

#include "acp/status.hpp"
#include "transport/line_framer.hpp"
#include "transport/transport.hpp"

namespace acp::test {

class RawPeer : private detail::TransportEvents, private detail::LineSink {
public:
    explicit RawPeer(std::unique_ptr<detail::Transport> end) : end_(std::move(end)) { end_->start(this); }
    ~RawPeer() override { end_->detach(); }

    void send(const std::string& text) { end_->write(text, detail::WriteCause::host); }
    void send_line(const std::string& json) { end_->write(json + "\n", detail::WriteCause::host); }
    void close() { end_->close(); }

    std::vector<std::string> lines;  // every line received, in order
    bool closed = false;

    // The i-th received line, parsed.
    rapidjson::Document parsed(std::size_t i) const {
        rapidjson::Document doc;
        doc.Parse(lines.at(i).c_str());
        return doc;
    }

private:
    void on_transport_data(char* data, std::size_t size) override { framer_.feed(data, size, *this); }
    void on_transport_closed(const Status&) override { closed = true; }
    void on_line(char* line, std::size_t size) override { lines.emplace_back(line, size); }
    void on_oversized_line(std::string_view, std::size_t) override {}

    std::unique_ptr<detail::Transport> end_;
    detail::LineFramer framer_;
};

}  // namespace acp::test
