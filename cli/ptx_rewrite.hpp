#pragma once
// `d4r-kernel ptx rewrite --recipe R FILE`: the PTX side of a recipe, run locally. Reads one PTX
// module from FILE (text, fatbin or DLL), parses it, runs the passes the recipe lists, in order,
// on the entries the recipe serves, and prints the rewritten module. Each pass reports its count
// ("sust: 12 rewrites", "roundf: unchanged") on the log stream.

#include "cli/options.hpp"
#include "util/error.hpp"

#include <ostream>
#include <string>

namespace d4r::cli {

// The rewritten PTX text. Errors name the recipe, FILE or the pass: a recipe without passes, a
// FILE with several modules and no (or no matching) --module, PTX that does not parse, an unknown
// pass, a target the recipe does not build, or a failing pass.
[[nodiscard]] Expected<std::string> rewrite_ptx(const PtxRewriteCommand& cmd, std::ostream& log);

} // namespace d4r::cli
