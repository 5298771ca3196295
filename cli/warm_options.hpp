#pragma once
// `d4r-kernel warm FILE... [--rr-dll FILE]... [--targets all|LIST] [--mode fast|accuracy|both]
// [--no-fp8] [--no-swin-encoders] [--max-decompressed SIZE]`, parsed (options.cpp hands over the
// command's options and positionals).

#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace d4r::cli {

// Which library a file's modules come from, as d4r's kernel_manifest.py splits them: a ray
// reconstruction DLL's hashes authorise only cuda_dldn_engine_* names, a super resolution DLL's
// (and any other input's) every other name.
enum class WarmOrigin { super_resolution, ray_reconstruction };

struct WarmFile {
  std::string path;
  WarmOrigin origin = WarmOrigin::super_resolution;
};

struct WarmCommand {
  std::vector<WarmFile> files;
  std::vector<std::string> targets; // empty: the daemon's detected GPU
  std::vector<Mode> modes;          // empty: the daemon's default mode
  bool fp8_native = true;
  bool native_swin_encoders = true;
  std::optional<int64_t> max_decompressed; // per input file; unset: the reader's default
};

// A positional FILE is the ray reconstruction library when its name is that DLL's
// (nvngx_dlssd*.dll, any case); --rr-dll FILE says so for any name.
[[nodiscard]] WarmOrigin origin_of_name(const std::string& path);

[[nodiscard]] std::string_view warm_help();

[[nodiscard]] Expected<WarmCommand>
parse_warm_command(const std::vector<std::pair<std::string, std::string>>& options,
                   const std::vector<std::string>& positionals);

} // namespace d4r::cli
