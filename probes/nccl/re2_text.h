// File: re2_text.h
// Between std::string_view and RE2's StringPiece (Debian's RE2 has its own
// type): the NCCL log readers match every line with RE2 (linear time on
// any input).
#pragma once

#include <re2/re2.h>

#include <string_view>

namespace nodeprobe::nccl {

inline re2::StringPiece Piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }
inline std::string_view View(re2::StringPiece s) { return std::string_view(s.data(), s.size()); }

}  // namespace nodeprobe::nccl
