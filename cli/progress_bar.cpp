#include "cli/progress_bar.hpp"

#include <algorithm>
#include <cstdio>

namespace d4r::cli {

namespace {

constexpr const char* k_erase_line = "\r\x1b[K";

} // namespace

std::optional<std::chrono::milliseconds> estimate_left(const ProgressCounts& counts)
{
  int64_t worked = counts.done - counts.already;
  int64_t left = counts.total - counts.done;
  if (worked <= 0 || left <= 0 || counts.elapsed.count() <= 0) {
    return std::nullopt;
  }
  // The items found in the cache took no time to speak of: the rate is the other ones'.
  return std::chrono::milliseconds(counts.elapsed.count() * left / worked);
}

std::string format_duration(std::chrono::milliseconds duration)
{
  int64_t seconds = std::max<int64_t>(0, duration.count() / 1000);
  char text[32];
  if (seconds >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", static_cast<long long>(seconds / 60),
                  static_cast<long long>(seconds % 60));
  }
  return text;
}

std::string progress_line(const ProgressCounts& counts, int width)
{
  std::string tail = " " + std::to_string(counts.done) + "/" + std::to_string(counts.total);
  if (counts.failed > 0) {
    tail += "  " + std::to_string(counts.failed) + " failed";
  }
  if (counts.running > 0) {
    tail += "  " + std::to_string(counts.running) + " running";
  }
  tail += "  " + format_duration(counts.elapsed);
  if (std::optional<std::chrono::milliseconds> left = estimate_left(counts)) {
    tail += ", about " + format_duration(*left) + " left";
  }
  const std::string head = "warm [";
  int bar = std::clamp(width - static_cast<int>(head.size() + 1 + tail.size()), 10, 40);
  int64_t filled = counts.total > 0 ? bar * counts.done / counts.total : bar;
  std::string line = head;
  line.append(static_cast<size_t>(filled), '#');
  line.append(static_cast<size_t>(bar - filled), '.');
  line += "]" + tail;
  if (static_cast<int>(line.size()) > width && width > 0) {
    line.resize(static_cast<size_t>(width)); // a narrow terminal: never wrap, or \r redraws fail
  }
  return line;
}

ProgressBar::ProgressBar(std::ostream& out, bool terminal, int width)
    : m_out(out), m_terminal(terminal), m_width(std::max(20, width))
{
}

void ProgressBar::update(const ProgressCounts& counts)
{
  m_last = counts;
  if (!m_terminal) {
    return;
  }
  m_out << k_erase_line << progress_line(counts, m_width - 1) << std::flush;
  m_drawn = true;
}

void ProgressBar::print_line(const std::string& text)
{
  if (m_terminal && m_drawn) {
    m_out << k_erase_line;
  }
  m_out << text << "\n";
  if (m_terminal && m_drawn) {
    m_out << progress_line(m_last, m_width - 1);
  }
  m_out << std::flush;
}

void ProgressBar::finish()
{
  if (m_terminal && m_drawn) {
    m_out << "\n" << std::flush;
  }
  m_drawn = false;
}

} // namespace d4r::cli
