#include "daemon/logging.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/systemd_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>

namespace d4r::daemon {

Expected<void> setup_logging(std::string_view level)
{
  spdlog::level::level_enum parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") {
    return make_error(ErrorCode::invalid_argument,
                      "--log-level " + std::string(level) + ": expected trace, debug, info, warn or error");
  }
  std::shared_ptr<spdlog::logger> logger;
  if (std::getenv("JOURNAL_STREAM") != nullptr) {
    logger = std::make_shared<spdlog::logger>("d4r-kerneld",
                                              std::make_shared<spdlog::sinks::systemd_sink_mt>());
  } else {
    logger = spdlog::stderr_color_mt("d4r-kerneld");
    logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
  }
  logger->set_level(parsed);
  spdlog::set_default_logger(logger);
  return {};
}

} // namespace d4r::daemon
