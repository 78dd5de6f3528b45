// SPDX-License-Identifier: Apache-2.0
// A whole file read into memory, bounded before it is read (the catalogue's registry and
// agents files). Follows links, unlike PlainFile: a user's agents file is often one. The
// path is UTF-8; Windows opens it with its wide name.
//
//   std::string text, why;
//   switch (read_whole_file(path, limit, text, why)) { case WholeFile::missing: ... }
#pragma once

#include <cstddef>
#include <string>

namespace acp::detail {

enum class WholeFile { ok, missing, too_large, failed };

// contents: the file's bytes (ok only); why: what failed, without the path.
WholeFile read_whole_file(const std::string& path, std::size_t max_bytes, std::string& contents, std::string& why);

}  // namespace acp::detail
