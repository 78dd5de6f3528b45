// SPDX-License-Identifier: Apache-2.0
// Files in prompts: `@path` words, confined to the session's directories, sent as
// resource (embedded text) or resource_link content blocks; and the names Tab offers
// after an `@`.
//
//   Roots roots{"/home/me/project", {"/home/me/lib"}};
//   Attachments a = attach("fix @src/main.cpp please", roots, /*embed=*/true);
//   if (!a.error.empty()) ...;  // refused: nothing is sent
//   request.prompt = a.blocks;  // the text, then one block per file
#pragma once

#include <acp/v2/types.hpp>

#include <optional>
#include <string>
#include <vector>

namespace chat {

// The directories a prompt may take files from: the session's cwd and its additional ones.
struct Roots {
    std::string cwd;
    std::vector<std::string> additional;
};

// The largest file embedded as text in a prompt; a bigger one goes as a link.
constexpr std::size_t kEmbedBytes = 256 * 1024;
// At most this many files in one prompt.
constexpr std::size_t kMaxAttachments = 16;

struct Attachments {
    std::vector<acp::v2::ContentBlock> blocks;  // the text block first
    std::vector<std::string> notes;             // said on screen: "attached ..."
    std::string error;                          // why the prompt is refused ("" = none)
};

// The prompt's blocks. An `@word` (at the start or after white space) naming an existing
// file is attached; one naming nothing stays text. A file outside the roots (after
// resolving links), not a regular file, or unreadable refuses the prompt. embed: the agent
// advertised promptCapabilities.embeddedContext: UTF-8 text up to kEmbedBytes goes as a
// resource with its text, anything else as a resource_link (which every agent takes).
Attachments attach(const std::string& text, const Roots& roots, bool embed);

// /image PATH: an image content block (the agent advertised promptCapabilities.image),
// its MIME type from the file's first bytes (PNG, JPEG, GIF, WebP; anything else is
// refused), at most kMaxImageBytes. error says why when it is not made.
constexpr std::size_t kMaxImageBytes = 5 * 1024 * 1024;
std::optional<acp::v2::ContentBlock> image_block(const std::string& path, std::string& error);

// Tab after `@`: the `@`-words for the names under the cwd starting with what follows the
// `@` (directories end in '/'); never outside the cwd, never more than a bounded number.
std::vector<std::string> complete_path(const std::string& word, const std::string& cwd);

}  // namespace chat
