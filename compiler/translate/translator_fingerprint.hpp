#pragma once
// The translator's fingerprint (fingerprint.cmake): a SHA-256, in hex, of every source that decides
// what a translated kernel's code object holds, computed when the project is built. Part of the
// cache key of every object built from PTX: a changed translator never serves an object the old one
// made. Derived, never bumped by hand.

#include <string_view>

namespace d4r::compiler::translate {

[[nodiscard]] std::string_view translator_fingerprint();

} // namespace d4r::compiler::translate
