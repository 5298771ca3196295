#pragma once
// The common interface of the PTX rewrite passes (STYLE.md, rule 13): one rewrite per pass class,
// run on a parsed module in place, counting each rewrite so that a recipe can report "unchanged"
// when a pass found nothing to do. Passes are built by name in registry.hpp.

#include "compiler/ptx/ast.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler::passes {

struct PassResult {
  int64_t rewrites = 0;
  bool changed() const { return rewrites > 0; }
};

// What a recipe tells a pass: the gfx target it compiles for, the entries it applies to, and its
// own named parameters (e.g. "kinds" for "sust").
struct PassOptions {
  std::string target;                            // "gfx1101"
  std::vector<std::string> kernels;              // entries the pass applies to; empty: all
  std::map<std::string, std::string> parameters; // pass-specific, documented by each pass
};

class Pass {
public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  // Rewrites module in place. On error the module may be partly rewritten: callers discard it.
  [[nodiscard]] virtual Expected<PassResult> run(ptx::Module& module) = 0;
};

// True when options.kernels is empty or names function (a pass applies to every body then).
[[nodiscard]] inline bool applies_to(const PassOptions& options, std::string_view function)
{
  if (options.kernels.empty()) {
    return true;
  }
  for (const std::string& kernel : options.kernels) {
    if (kernel == function) {
      return true;
    }
  }
  return false;
}

} // namespace d4r::compiler::passes
