// SPDX-License-Identifier: Apache-2.0
#include "transport/read_throttle.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace acp::detail {

void ReadThrottle::configure(ReadSwitch* reader, WriteLimits limits, Logger logger) {
    reader_ = reader;
    limits_ = std::move(limits);
    limits_.low_water = std::min(limits_.low_water, limits_.high_water);
    logger_ = std::move(logger);
}

void ReadThrottle::update(std::size_t agent_bytes) {
    if (reader_ == nullptr || released_ || limits_.high_water == 0) return;
    if (!output_full_ && agent_bytes > limits_.high_water) {
        output_full_ = true;
        logger_(LogLevel::warning, log_source::transport,
                "the agent is not reading its input: " + std::to_string(agent_bytes) +
                    " bytes of answers to its requests are queued for it; reading from the agent is paused "
                    "until fewer than " +
                    std::to_string(limits_.low_water) + " are queued (ClientOptions::max_queued_output_bytes)");
        apply();
        if (limits_.on_pause) limits_.on_pause(true, agent_bytes);
        return;
    }
    if (output_full_ && agent_bytes <= limits_.low_water) {
        output_full_ = false;
        logger_(LogLevel::info, log_source::transport,
                held_ ? "the agent read its input again (reading stays paused while the host lags)"
                      : "the agent read its input again; reading from the agent resumed");
        apply();
        if (limits_.on_pause) limits_.on_pause(false, agent_bytes);
    }
}

void ReadThrottle::hold(bool held) {
    if (reader_ == nullptr || released_) return;
    held_ = held;
    apply();
}

void ReadThrottle::apply() {
    const bool pause = output_full_ || held_;
    if (pause == paused_) return;
    paused_ = pause;
    if (pause) {
        reader_->pause_reading();
    } else {
        reader_->resume_reading();
    }
}

void ReadThrottle::release() {
    released_ = true;
    if (paused_ && reader_ != nullptr) {
        paused_ = false;
        reader_->resume_reading();
    }
}

}  // namespace acp::detail
