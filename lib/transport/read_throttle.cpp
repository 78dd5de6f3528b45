// SPDX-License-Identifier: Apache-2.0
#include "transport/read_throttle.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace acp::detail {

void ReadThrottle::configure(ReadSwitch* reader, std::size_t high_water, std::size_t low_water, Logger logger) {
    reader_ = reader;
    high_water_ = high_water;
    low_water_ = std::min(low_water, high_water);
    logger_ = std::move(logger);
}

void ReadThrottle::update(std::size_t queued_bytes) {
    if (reader_ == nullptr || released_ || high_water_ == 0) return;
    if (!output_full_ && queued_bytes > high_water_) {
        output_full_ = true;
        logger_(LogLevel::warning, log_source::transport,
                "the agent is not reading its input: " + std::to_string(queued_bytes) +
                    " bytes are queued for it; reading from the agent is paused until fewer than " +
                    std::to_string(low_water_) + " are queued (ClientOptions::max_queued_output_bytes)");
    } else if (output_full_ && queued_bytes <= low_water_) {
        output_full_ = false;
        logger_(LogLevel::info, log_source::transport,
                held_ ? "the agent read its input again (reading stays paused while the host lags)"
                      : "the agent read its input again; reading from the agent resumed");
    }
    apply();
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
