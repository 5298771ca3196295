// KernelCore's part in `d4r-kernel warm` (warm_jobs.hpp), kept out of kernel_core.cpp.

#include "daemon/kernel_core.hpp"

namespace d4r::daemon {

Expected<PrepareAnswer> KernelCore::warm_plan(const PrepareQuery& query) const
{
  TRY_ASSIGN(EffectiveSelection selection, effective_selection(query.selection));
  PrepareAnswer answer;
  bool translatable = false;
  for (const std::string& entry : query.entries) {
    if (!validate_kernel_name(entry) || !servable(entry, query.module_hash, selection)) {
      continue;
    }
    answer.servable_entries.push_back(entry);
    const compiler::Recipe* recipe = m_builds ? m_builds->recipe_for(entry) : nullptr;
    translatable = translatable || (recipe && recipe->language == compiler::SourceLanguage::ptx);
  }
  // What a ptx recipe translates must be in the module store; the release and a source recipe
  // need no upload.
  answer.need_module_bytes =
      translatable && (query.module_sha256 ? !m_modules.contains(*query.module_sha256)
                                           : !m_modules.find_by_fnv(query.module_hash));
  return answer;
}

int KernelCore::build_threads() const
{
  return m_builds ? m_builds->threads() : 1;
}

} // namespace d4r::daemon
