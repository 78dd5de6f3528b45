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
    if (!paused_ && queued_bytes > high_water_) {
        paused_ = true;
        reader_->pause_reading();
        logger_(LogLevel::warning, log_source::transport,
                "the agent is not reading its input: " + std::to_string(queued_bytes) +
                    " bytes are queued for it; reading from the agent is paused until fewer than " +
                    std::to_string(low_water_) + " are queued (ClientOptions::max_queued_output_bytes)");
    } else if (paused_ && queued_bytes <= low_water_) {
        paused_ = false;
        reader_->resume_reading();
        logger_(LogLevel::info, log_source::transport,
                "the agent read its input again; reading from the agent resumed");
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
