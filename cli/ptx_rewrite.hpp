#pragma once
// `d4r-kernel ptx rewrite --recipe R FILE`: the PTX side of a recipe, run locally. Reads one PTX
// module from FILE (text, fatbin or DLL), parses it, runs the passes the recipe lists, in order,
// on the entries the recipe serves, and prints the rewritten module. Each pass reports its count
// ("sust: 12 rewrites", "roundf: unchanged") on the log stream.

#include "cli/options.hpp"
#include "compiler/ptx/container.hpp"
#include "compiler/recipe.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <optional>

#include <ostream>
#include <string>

namespace d4r::cli {

// The one PTX module of `path` (PTX text, a fatbin or a DLL), or the one `module_hash` names when
// it holds several. Errors: unreadable or malformed, no PTX, several modules and no (matching) hash.
[[nodiscard]] Expected<compiler::ptx::PtxModule> read_one_ptx_module(const std::string& path,
                                                                     std::optional<uint64_t> module_hash);

// A recipe read for its passes. Errors: unreadable, malformed, or it lists no passes.
[[nodiscard]] Expected<compiler::Recipe> load_pass_recipe(const std::string& path);

// The rewritten PTX text. Errors name the recipe, FILE or the pass: a recipe without passes, a
// FILE with several modules and no (or no matching) --module, PTX that does not parse, an unknown
// pass, a target the recipe does not build, or a failing pass.
[[nodiscard]] Expected<std::string> rewrite_ptx(const PtxRewriteCommand& cmd, std::ostream& log);

} // namespace d4r::cli
