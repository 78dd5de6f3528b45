// SPDX-License-Identifier: Apache-2.0
// Unpacking a downloaded agent archive into a fresh directory (internal), with libarchive
// loaded on first use like libcurl (an editor that never installs an agent does not map
// it). The archive is hostile: absolute paths, "..", entries through or links out of the
// target, hard links, devices, FIFOs and sockets are refused, and so is an archive whose
// members add up past a bound (a sparse 10 GB member counts as 10 GB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "acp/status.hpp"

namespace acp::detail {

struct UnpackLimits {
    std::uint64_t max_total_bytes;
    std::size_t max_entries;
};

// `target` must exist and be empty; on an error it may hold part of the archive (the
// caller removes it).
Status unpack_archive(const std::string& archive, const std::string& target, const UnpackLimits& limits);

}  // namespace acp::detail
