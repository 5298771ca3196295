// d4r_fixture_manifest: writes the d4r-kernels.txt of the release-directory fixture from the PTX
// fixtures, the way d4r's kernel_manifest.py does from the game's DLLs, so that the manifests
// follow tests/ptx/*.ptx when it is regenerated instead of holding typed-in hashes.
//
//   d4r_fixture_manifest --out FILE --sr SR.ptx --rr RR.ptx NAME[=sr|=rr]...
//
// NAME alone takes the hash of the module that defines `.entry NAME`, with the Ray Reconstruction
// split (d4r-contract.md §1): cuda_dldn_engine_* names only from the RR module, all others only
// from the SR module; a name that its module does not define is an error ("no module defines").
// NAME=sr / NAME=rr forces that module's hash: for the fixture's broken and missing kernels, which
// no PTX defines. Lines are `NAME HASH ORIGIN`, sorted by name; ORIGIN is our extension, which the
// d4r bridge's parser skips over.

#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/ptx_identity.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Module {
  std::string origin; // "sr" or "rr"
  std::string path;
  uint64_t hash = 0;
  std::vector<std::string> entries;
};

struct Options {
  std::string out;
  std::string sr_path;
  std::string rr_path;
  std::vector<std::string> names;
};

struct Line {
  std::string name;
  uint64_t hash = 0;
  std::string origin;
};

d4r::Expected<Module> load_module(std::string origin, const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return d4r::make_error(d4r::ErrorCode::io,
                           "fixture_manifest: " + path + ": cannot open");
  }
  std::ostringstream text;
  text << in.rdbuf();
  Module module{std::move(origin), path, 0, {}};
  module.hash = d4r::ptx_module_hash(text.str());
  module.entries = d4r::scan_entry_names(text.str());
  return module;
}

d4r::Expected<Options> parse_options(int argc, char** argv)
{
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--out" && has_value) {
      options.out = argv[++i];
    } else if (arg == "--sr" && has_value) {
      options.sr_path = argv[++i];
    } else if (arg == "--rr" && has_value) {
      options.rr_path = argv[++i];
    } else if (arg.starts_with("-")) {
      return d4r::make_error(d4r::ErrorCode::invalid_argument,
                             "fixture_manifest: unknown option " + std::string(arg));
    } else {
      options.names.emplace_back(arg);
    }
  }
  if (options.out.empty() || options.sr_path.empty() || options.rr_path.empty()) {
    return d4r::make_error(d4r::ErrorCode::invalid_argument,
                           "usage: d4r_fixture_manifest --out FILE --sr SR.ptx --rr RR.ptx "
                           "NAME[=sr|=rr]...");
  }
  return options;
}

d4r::Expected<Line> line_for(std::string_view spec, const Module& sr, const Module& rr)
{
  size_t equals = spec.find('=');
  std::string name(spec.substr(0, equals));
  if (equals != std::string_view::npos) {
    std::string_view origin = spec.substr(equals + 1);
    if (origin != sr.origin && origin != rr.origin) {
      return d4r::make_error(d4r::ErrorCode::invalid_argument,
                             "fixture_manifest: " + name + ": unknown origin " +
                                 std::string(origin));
    }
    const Module& forced = origin == sr.origin ? sr : rr;
    return Line{name, forced.hash, forced.origin};
  }
  const Module& module = name.starts_with("cuda_dldn_engine_") ? rr : sr;
  if (std::ranges::find(module.entries, name) == module.entries.end()) {
    return d4r::make_error(d4r::ErrorCode::not_found,
                           "fixture_manifest: no module defines " + name + " (" + module.path +
                               " has no .entry " + name + ")");
  }
  return Line{name, module.hash, module.origin};
}

d4r::Expected<void> write_manifest(const Options& options, const Module& sr, const Module& rr,
                                   std::vector<Line> lines)
{
  std::ranges::sort(lines, [](const Line& a, const Line& b) {
    return a.name != b.name ? a.name < b.name : a.hash < b.hash;
  });
  std::string tmp = options.out + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << "# d4r-kernels.txt: fixture manifest written by tests/tools/fixture_manifest.cpp\n";
    for (const Module* module : {&sr, &rr}) {
      out << "# " << module->origin << ' ' << d4r::hash_to_hex(module->hash) << ' '
          << std::filesystem::path(module->path).filename().string() << '\n';
    }
    for (const Line& line : lines) {
      out << line.name << ' ' << d4r::hash_to_hex(line.hash) << ' ' << line.origin << '\n';
    }
    if (!out.flush()) {
      return d4r::make_error(d4r::ErrorCode::io,
                             "fixture_manifest: " + tmp + ": write failed");
    }
  }
  std::error_code error;
  std::filesystem::rename(tmp, options.out, error);
  if (error) {
    return d4r::make_error(d4r::ErrorCode::io, "fixture_manifest: " + options.out + ": " +
                                                   error.message());
  }
  return {};
}

d4r::Expected<void> run(int argc, char** argv)
{
  TRY_ASSIGN(Options options, parse_options(argc, argv));
  TRY_ASSIGN(Module sr, load_module("sr", options.sr_path));
  TRY_ASSIGN(Module rr, load_module("rr", options.rr_path));
  std::vector<Line> lines;
  for (const std::string& spec : options.names) {
    TRY_ASSIGN(Line line, line_for(spec, sr, rr));
    lines.push_back(std::move(line));
  }
  return write_manifest(options, sr, rr, std::move(lines));
}

} // namespace

int main(int argc, char** argv)
{
  d4r::Expected<void> result = run(argc, argv);
  if (!result) {
    std::cerr << result.error().message << '\n';
    return 1;
  }
  return 0;
}
