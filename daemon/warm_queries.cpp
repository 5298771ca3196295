#include "daemon/warm_queries.hpp"

namespace d4r::daemon {

bool WarmQueries::contains(const std::string& key) const
{
  std::lock_guard lock(m_mutex);
  return m_keys.contains(key);
}

void WarmQueries::note(const std::string& key, bool ready, std::shared_ptr<const WarmAnswer> answer)
{
  std::lock_guard lock(m_mutex);
  if (!ready) {
    m_keys.erase(key);
    return;
  }
  if (m_keys.size() >= k_max_keys && !m_keys.contains(key)) {
    m_keys.clear();
  }
  m_keys.insert_or_assign(key, std::move(answer));
}

std::shared_ptr<const WarmAnswer> WarmQueries::answer(const std::string& key) const
{
  std::lock_guard lock(m_mutex);
  auto found = m_keys.find(key);
  return found == m_keys.end() ? nullptr : found->second;
}

size_t WarmQueries::size() const
{
  std::lock_guard lock(m_mutex);
  return m_keys.size();
}

} // namespace d4r::daemon
