#pragma once
// A scoped timer for named phases (STYLE.md rule 14): it reports its elapsed time to a callback
// when it goes out of scope, so phases feed statistics and benchmarks without clutter.

#include <chrono>
#include <functional>
#include <string_view>
#include <utility>

namespace d4r {

class Timer {
public:
  using Report = std::function<void(std::string_view phase, std::chrono::nanoseconds elapsed)>;

  Timer(std::string_view phase, Report report)
      : m_phase(phase), m_report(std::move(report)), m_start(std::chrono::steady_clock::now())
  {
  }
  ~Timer()
  {
    if (m_report) {
      m_report(m_phase, std::chrono::steady_clock::now() - m_start);
    }
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

private:
  std::string_view m_phase;
  Report m_report;
  std::chrono::steady_clock::time_point m_start;
};

} // namespace d4r
