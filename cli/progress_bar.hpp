#pragma once
// A one-line progress bar for long CLI work (`d4r-kernel warm`): kernels done of the total, the
// failures, the elapsed time and an estimate of what is left. On a terminal the line is redrawn
// in place (carriage return, then erase to the end of the line); other output is printed above
// it. Not on a terminal nothing is redrawn: the caller prints plain lines instead.

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace d4r::cli {

struct ProgressCounts {
  int64_t total = 0;
  int64_t done = 0;    // finished in any way (already, built, failed, dropped)
  int64_t already = 0; // in the cache before this run: they say nothing about the rate
  int64_t failed = 0;
  int64_t running = 0;
  std::chrono::milliseconds elapsed{0};
};

// What is left at the rate of the items this run did itself (done - already); nullopt before one
// finished, or when nothing is left.
[[nodiscard]] std::optional<std::chrono::milliseconds> estimate_left(const ProgressCounts& counts);

// "m:ss", or "h:mm:ss" past an hour.
[[nodiscard]] std::string format_duration(std::chrono::milliseconds duration);

// The bar's text for `width` columns, e.g.
// "warm [########............] 12/40  1 failed  2 running  0:14, about 0:31 left".
[[nodiscard]] std::string progress_line(const ProgressCounts& counts, int width);

class ProgressBar {
public:
  ProgressBar(std::ostream& out, bool terminal, int width = 80);

  [[nodiscard]] bool terminal() const { return m_terminal; }
  // Redraws the bar (terminal only).
  void update(const ProgressCounts& counts);
  // A line of its own: above the bar on a terminal (which is then drawn again).
  void print_line(const std::string& text);
  // Ends the bar's line (terminal only), so that what follows starts on a fresh line.
  void finish();

private:
  std::ostream& m_out;
  bool m_terminal;
  int m_width;
  bool m_drawn = false;
  ProgressCounts m_last;
};

} // namespace d4r::cli
