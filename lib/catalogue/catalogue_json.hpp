// SPDX-License-Identifier: Apache-2.0
// Reading registry.json and agents.json into catalogue entries, every field checked
// (internal). The registry is untrusted: a bad entry is left out with a reason, and the
// text as a whole is bounded before it is parsed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "acp/catalogue.hpp"

namespace acp::detail {

// Bounds on what a registry may hold: far above the real registry (about 60 agents,
// 60 KiB) and far below what would hurt a host.
constexpr std::size_t kMaxCatalogueTextBytes = 4u * 1024 * 1024;
constexpr std::size_t kMaxCatalogueEntries = 2000;
constexpr std::size_t kMaxCatalogueProblems = 100;

struct ParsedRegistry {
    std::vector<CatalogueEntry> entries;
    std::vector<std::string> problems;
};

struct ParsedUserAgents {
    std::vector<CatalogueEntry> entries;
    std::string default_agent;
    std::vector<std::string> problems;
};

Result<ParsedRegistry> parse_registry_json(std::string_view text);
Result<ParsedUserAgents> parse_user_agents_json(std::string_view text);

// An id or agent name: [a-z0-9][a-z0-9._-]*, at most 64 bytes (it names a cache folder).
bool is_safe_agent_id(std::string_view id);

}  // namespace acp::detail
