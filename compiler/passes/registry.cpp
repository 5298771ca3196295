#include "compiler/passes/registry.hpp"

#include "compiler/passes/fp8_convert.hpp"
#include "compiler/passes/roundf_idiom.hpp"
#include "compiler/passes/splice.hpp"
#include "compiler/passes/surface_store.hpp"

#include <array>
#include <string>

namespace d4r::compiler::passes {

namespace {

using Factory = Expected<std::unique_ptr<Pass>> (*)(const PassOptions&);

struct Entry {
  std::string_view name;
  Factory factory;
};

// One line per pass; each factory validates its own parameters.
constexpr std::array k_passes = {
    Entry{"sust", &make_surface_store_pass},
    Entry{"fp8-cvt", &make_fp8_convert_pass},
    Entry{"roundf", &make_roundf_pass},
    Entry{"splice", &make_splice_pass},
};

} // namespace

Expected<std::unique_ptr<Pass>> make_pass(std::string_view name, const PassOptions& options)
{
  for (const Entry& entry : k_passes) {
    if (entry.name == name) {
      return entry.factory(options);
    }
  }
  return make_error(ErrorCode::invalid_argument,
                    "passes: unknown pass '" + std::string(name) + "'");
}

std::vector<std::string_view> pass_names()
{
  std::vector<std::string_view> names;
  names.reserve(k_passes.size());
  for (const Entry& entry : k_passes) {
    names.push_back(entry.name);
  }
  return names;
}

} // namespace d4r::compiler::passes
