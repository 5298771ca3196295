#include "util/variables.hpp"

#include <algorithm>

namespace d4r {

const VariableInfo* find_variable(std::string_view name)
{
  for (const VariableInfo& info : k_variables) {
    if (info.name == name) {
      return &info;
    }
  }
  return nullptr;
}

bool is_known_variable(std::string_view name)
{
  return find_variable(name) != nullptr ||
         std::find(std::begin(k_d4r_bridge_variables), std::end(k_d4r_bridge_variables), name) !=
             std::end(k_d4r_bridge_variables);
}

} // namespace d4r
