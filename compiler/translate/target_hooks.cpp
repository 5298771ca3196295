#include "compiler/translate/target_hooks.hpp"

#include "compiler/translate/lowering.hpp"

#include <array>

namespace d4r::compiler::translate {

bool is_special_register(std::string_view name)
{
  static constexpr std::array<std::string_view, 34> k_names = {
      "%tid.x",         "%tid.y",         "%tid.z",         "%ntid.x",       "%ntid.y",
      "%ntid.z",        "%ctaid.x",       "%ctaid.y",       "%ctaid.z",      "%nctaid.x",
      "%nctaid.y",      "%nctaid.z",      "%laneid",        "%warpid",       "%nwarpid",
      "%lanemask_eq",   "%lanemask_lt",   "%lanemask_le",   "%lanemask_gt",  "%lanemask_ge",
      "%clock",         "%clock64",       "%clock_hi",      "%globaltimer",  "%globaltimer_lo",
      "%smid",          "%nsmid",         "%gridid",        "%warpsize",     "%dynamic_smem_size",
      "%total_smem_size", "%aggr_smem_size", "%globaltimer_hi", "%is_explicit_cluster"};
  for (std::string_view known : k_names) {
    if (known == name) {
      return true;
    }
  }
  return is_cluster_register(name); // lower_cluster.cpp: clusters of one CTA
}

} // namespace d4r::compiler::translate
