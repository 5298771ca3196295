#pragma once
// A recipe says how to build one family of native kernels on demand: which kernel names it serves,
// which PTX modules authorise serving them, its source and the flags of each (target, mode) build.
// One file per family in kernels/recipes/ (kernels/recipes/README.md describes the format):
//
//   recipe = d4r_example_layer            # unique name
//   version = 1                           # part of the cache key: bump when the build changes
//   kernels = d4r_example_layer           # exact names (space separated, repeatable)
//   patterns = d4r_example_variant_*      # fnmatch-style names with * and ? (optional)
//   modules = 8baeb925f177af87            # FNV-1a 64 module hashes, at least one
//   source = ../examples/d4r_example_layer.hip   # relative to the recipe file
//   language = hip                        # default hip; ptx: the game's module (no source)
//   targets = gfx1100 gfx1201             # default: all six
//   accuracy_define = D4R_ACCURACY        # defined in accuracy builds (the default)
//   wave64 = fast                         # never (default) | fast
//   flags = -ffast-math                   # extra front-end flags (optional, repeatable)
//   passes = sust fp8-cvt roundf          # PTX rewrite passes, in order (optional, repeatable)
//   pass.sust.kinds = b16x4 b32           # a parameter of one listed pass (optional)

#include "compiler/backend.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler {

struct Recipe {
  std::string name;
  int version = 0;
  std::vector<std::string> kernels;
  std::vector<std::string> patterns;
  std::vector<uint64_t> module_hashes;
  std::filesystem::path recipe_path; // the .recipe file, as given to the parser
  std::filesystem::path source;      // resolved against the recipe's folder, normalised
  SourceLanguage language = SourceLanguage::hip;
  std::vector<std::string> targets;
  std::string accuracy_define = "D4R_ACCURACY";
  bool wave64_in_fast_mode = false;
  std::vector<std::string> flags;
  // PTX rewrite passes (compiler/passes/registry.hpp names them), run in this order, and the
  // parameters of each by pass name. Which names exist is the registry's to say.
  std::vector<std::string> passes;
  std::map<std::string, std::map<std::string, std::string>> pass_parameters;
};

// Parses one recipe. `recipe_path` names the file in messages and anchors `source`, which must
// exist. Errors (invalid_argument, "recipe FILE:LINE: ..."): an unknown or repeated single key, a
// missing required key (recipe, version, modules, source, and kernels or patterns), a bad hash,
// kernel name, pattern or target, a pass name that is not [a-z0-9-] or is listed twice, a
// parameter of a pass that `passes` does not list; not_found: the source does not exist.
[[nodiscard]] Expected<Recipe> parse_recipe(std::string_view text,
                                            const std::filesystem::path& recipe_path);

// Every *.recipe of `folder` (not recursive), sorted by file name. A file that does not parse, or
// two files with one recipe name, is an error naming the file(s).
[[nodiscard]] Expected<std::vector<Recipe>> load_recipes(const std::filesystem::path& folder);

// Whether `kernel` is one of the recipe's exact names or matches one of its patterns. An invalid
// kernel name is never served.
[[nodiscard]] bool recipe_serves(const Recipe& recipe, std::string_view kernel);

// The compile job for one (recipe, target, mode), as the d4r build compiles: `-O3`, then the
// source's `// d4r-build-flags:` line, replaced by `// d4r-build-flags-<target>:` (gfx1101) or else
// `// d4r-build-flags-<family>:` (gfx12) when present, then the recipe's flags, then
// `-D<accuracy_define>` in accuracy mode. wave64 only in fast mode and only when the recipe asks.
// Reads the source. work_dir is left empty for the caller. Errors: invalid_argument for an unknown
// target, not_found for a target the recipe does not build, io for an unreadable source.
[[nodiscard]] Expected<CompileJob> make_compile_job(const Recipe& recipe, std::string_view target,
                                                    Mode mode);

// SHA-256 (hex) of everything that changes the objects the recipe builds: name, version,
// language, flags, accuracy define, wave64 rule, passes and their parameters (recipes without
// passes keep the fingerprint they had), the source text and, recursively, the text of every
// local header it names with #include "..." (resolved next to the including file). Which
// kernels, modules and targets it serves are left out: authorising one more module or target must
// not rebuild the objects already made. Errors: io when the source cannot be read.
// A ptx recipe's fingerprint includes the translator's (translate/translator_fingerprint.hpp),
// which covers the rewrite passes too: `translator` replaces it in tests.
[[nodiscard]] Expected<std::string> recipe_fingerprint(const Recipe& recipe);
[[nodiscard]] Expected<std::string> recipe_fingerprint(const Recipe& recipe,
                                                       std::string_view translator);

} // namespace d4r::compiler
