#include "compiler/recipe.hpp"

#include "compiler/translate/translator_fingerprint.hpp"
#include "util/digest.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <system_error>
#include <utility>

namespace d4r::compiler {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_flags_marker = "d4r-build-flags";
// Headers nest a few levels at most; the limit only stops an include cycle of distinct paths
// (a/../a/x.h) from recursing forever.
constexpr int k_max_include_depth = 16;

std::string_view trim(std::string_view text)
{
  constexpr std::string_view k_space = " \t\r\n";
  size_t first = text.find_first_not_of(k_space);
  if (first == std::string_view::npos) {
    return {};
  }
  size_t last = text.find_last_not_of(k_space);
  return text.substr(first, last - first + 1);
}

std::vector<std::string> split_words(std::string_view text)
{
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  std::string word;
  while (in >> word) {
    words.push_back(word);
  }
  return words;
}

Expected<std::string> read_text(const fs::path& path, std::string_view what)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorCode::io, std::string(what) + " " + path.string() + ": cannot open");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return make_error(ErrorCode::io, std::string(what) + " " + path.string() + ": read failed");
  }
  return text.str();
}

// A pass name as the registry spells them: "sust", "fp8-cvt".
bool is_pass_name(std::string_view text)
{
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

bool is_identifier(std::string_view text)
{
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) {
    return false;
  }
  return std::ranges::all_of(text, [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// A name pattern: the characters of a kernel name plus the wildcards * and ?. No brackets or
// backslashes, so fnmatch has nothing else to interpret.
bool is_valid_pattern(std::string_view pattern)
{
  if (pattern.empty() || pattern.size() > k_max_kernel_name) {
    return false;
  }
  return std::ranges::all_of(pattern, [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '*' || c == '?';
  });
}

// One recipe being parsed: the fields so far, which single keys were seen, and where `source`
// was given (its line names the error when the file does not exist).
struct ParseState {
  Recipe recipe;
  std::string file;
  std::set<std::string, std::less<>> single_keys_seen;
  std::map<std::string, int, std::less<>> pass_parameter_lines; // pass name: first line naming it
  bool targets_given = false;
  std::string source_text;
  int source_line = 0;
};

std::unexpected<Error> line_error(const ParseState& state, int line, const std::string& message)
{
  return make_error(ErrorCode::invalid_argument,
                    "recipe " + state.file + ":" + std::to_string(line) + ": " + message);
}

Expected<void> add_unique(const ParseState& state, int line, std::string_view what,
                          std::vector<std::string>& list, const std::string& value)
{
  if (std::ranges::find(list, value) != list.end()) {
    return line_error(state, line, "duplicate " + std::string(what) + " '" + value + "'");
  }
  list.push_back(value);
  return {};
}

Expected<void> apply_list_key(ParseState& state, int line, std::string_view key,
                              const std::vector<std::string>& words)
{
  Recipe& recipe = state.recipe;
  for (const std::string& word : words) {
    if (key == "kernels") {
      if (Expected<void> valid = validate_kernel_name(word); !valid) {
        return line_error(state, line, "invalid kernel name '" + word + "'");
      }
      TRY(add_unique(state, line, "kernel", recipe.kernels, word));
    } else if (key == "patterns") {
      if (!is_valid_pattern(word)) {
        return line_error(state, line,
                          "invalid pattern '" + word + "' (allowed: A-Z a-z 0-9 _ $ * ?)");
      }
      TRY(add_unique(state, line, "pattern", recipe.patterns, word));
    } else if (key == "modules") {
      std::optional<uint64_t> hash = parse_hash_hex(word);
      if (!hash) {
        return line_error(state, line, "bad module hash '" + word + "' (want 16 hex digits)");
      }
      if (std::ranges::find(recipe.module_hashes, *hash) != recipe.module_hashes.end()) {
        return line_error(state, line, "duplicate module hash '" + word + "'");
      }
      recipe.module_hashes.push_back(*hash);
    } else if (key == "targets") {
      if (!is_known_target(word)) {
        return line_error(state, line, "unknown target '" + word + "'");
      }
      TRY(add_unique(state, line, "target", recipe.targets, word));
    } else if (key == "passes") {
      if (!is_pass_name(word)) {
        return line_error(state, line, "invalid pass name '" + word + "' (allowed: a-z 0-9 -)");
      }
      TRY(add_unique(state, line, "pass", recipe.passes, word));
    } else {
      recipe.flags.push_back(word);
    }
  }
  if (key == "targets") {
    state.targets_given = true;
  }
  return {};
}

Expected<void> apply_single_key(ParseState& state, int line, std::string_view key,
                                std::string_view value)
{
  Recipe& recipe = state.recipe;
  if (key == "recipe") {
    if (!is_identifier(value)) {
      return line_error(state, line, "invalid recipe name '" + std::string(value) + "'");
    }
    recipe.name = value;
  } else if (key == "version") {
    int version = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), version);
    if (ec != std::errc() || end != value.data() + value.size() || version < 1) {
      return line_error(state, line, "bad version '" + std::string(value) + "' (want 1 or more)");
    }
    recipe.version = version;
  } else if (key == "source") {
    state.source_text = value;
    state.source_line = line;
  } else if (key == "language") {
    if (value == "hip") {
      recipe.language = SourceLanguage::hip;
    } else if (value == "llvm_ir") {
      recipe.language = SourceLanguage::llvm_ir;
    } else if (value == "llvm_bitcode") {
      recipe.language = SourceLanguage::llvm_bitcode;
    } else if (value == "ptx") {
      recipe.language = SourceLanguage::ptx;
    } else {
      return line_error(state, line,
                        "unsupported language '" + std::string(value) +
                            "' (want hip, llvm_ir, llvm_bitcode or ptx)");
    }
  } else if (key == "accuracy_define") {
    if (!is_identifier(value)) {
      return line_error(state, line, "invalid accuracy_define '" + std::string(value) + "'");
    }
    recipe.accuracy_define = value;
  } else if (key == "wave64") {
    if (value != "never" && value != "fast") {
      return line_error(state, line, "bad wave64 '" + std::string(value) + "' (want never or fast)");
    }
    recipe.wave64_in_fast_mode = value == "fast";
  }
  return {};
}

// `pass.<name>.<param> = value`: the value is kept whole (a pass splits it if it wants words).
Expected<void> apply_pass_parameter(ParseState& state, int line, std::string_view key,
                                    std::string_view value)
{
  std::string_view rest = key.substr(std::string_view("pass.").size());
  size_t dot = rest.find('.');
  std::string_view pass = rest.substr(0, dot);
  std::string_view param = dot == std::string_view::npos ? "" : rest.substr(dot + 1);
  if (!is_pass_name(pass) || !is_identifier(param)) {
    return line_error(state, line,
                      "bad pass parameter key '" + std::string(key) + "' (want pass.NAME.PARAM)");
  }
  std::map<std::string, std::string>& params = state.recipe.pass_parameters[std::string(pass)];
  if (!params.try_emplace(std::string(param), value).second) {
    return line_error(state, line, "repeated key '" + std::string(key) + "'");
  }
  state.pass_parameter_lines.try_emplace(std::string(pass), line);
  return {};
}

Expected<void> apply_line(ParseState& state, int line, std::string_view raw)
{
  std::string_view text = trim(raw.substr(0, raw.find('#')));
  if (text.empty()) {
    return {};
  }
  size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    return line_error(state, line, "expected 'key = value'");
  }
  std::string key(trim(text.substr(0, equals)));
  std::string_view value = trim(text.substr(equals + 1));
  static const std::set<std::string, std::less<>> k_list_keys = {
      "kernels", "patterns", "modules", "targets", "flags", "passes"};
  static const std::set<std::string, std::less<>> k_single_keys = {
      "recipe", "version", "source", "language", "accuracy_define", "wave64"};
  bool is_list = k_list_keys.contains(key);
  if (key.starts_with("pass.")) {
    if (value.empty()) {
      return line_error(state, line, "empty value for '" + key + "'");
    }
    return apply_pass_parameter(state, line, key, value);
  }
  if (!is_list && !k_single_keys.contains(key)) {
    return line_error(state, line, "unknown key '" + key + "'");
  }
  if (value.empty()) {
    return line_error(state, line, "empty value for '" + key + "'");
  }
  if (is_list) {
    return apply_list_key(state, line, key, split_words(value));
  }
  if (!state.single_keys_seen.insert(key).second) {
    return line_error(state, line, "repeated key '" + key + "'");
  }
  return apply_single_key(state, line, key, value);
}

Expected<void> finish_recipe(ParseState& state, const fs::path& recipe_path)
{
  Recipe& recipe = state.recipe;
  for (std::string_view key : {"recipe", "version"}) {
    if (!state.single_keys_seen.contains(key)) {
      return make_error(ErrorCode::invalid_argument,
                        "recipe " + state.file + ": missing key '" + std::string(key) + "'");
    }
  }
  // A PTX recipe builds from the game's own module, which the client uploads: it has no source.
  bool is_ptx = recipe.language == SourceLanguage::ptx;
  if (is_ptx && state.single_keys_seen.contains("source")) {
    return line_error(state, state.source_line,
                      "a ptx recipe builds the game's module and takes no 'source'");
  }
  if (!is_ptx && !state.single_keys_seen.contains("source")) {
    return make_error(ErrorCode::invalid_argument, "recipe " + state.file + ": missing key 'source'");
  }
  if (recipe.module_hashes.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "recipe " + state.file + ": missing key 'modules'");
  }
  if (recipe.kernels.empty() && recipe.patterns.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "recipe " + state.file + ": missing key 'kernels' or 'patterns'");
  }
  for (const auto& [pass, line] : state.pass_parameter_lines) {
    if (std::ranges::find(recipe.passes, pass) == recipe.passes.end()) {
      return line_error(state, line, "parameter of pass '" + pass + "', which 'passes' does not list");
    }
  }
  if (!state.targets_given) {
    recipe.targets.assign(k_known_targets.begin(), k_known_targets.end());
  }
  if (is_ptx) {
    return {};
  }
  // Absolute, so that a worker running in another folder finds it.
  std::error_code ec;
  recipe.source = fs::absolute(recipe_path.parent_path() / state.source_text, ec).lexically_normal();
  if (!fs::is_regular_file(recipe.source, ec)) {
    return make_error(ErrorCode::not_found, "recipe " + state.file + ":" +
                                                std::to_string(state.source_line) + ": source " +
                                                recipe.source.string() + " does not exist");
  }
  return {};
}

// The flags of the source's `// d4r-build-flags[-SUFFIX]: ...` lines, by suffix ("" for the
// default line). The first line of each suffix counts.
std::map<std::string, std::vector<std::string>, std::less<>> source_flag_lines(
    std::string_view source)
{
  std::map<std::string, std::vector<std::string>, std::less<>> lines;
  std::istringstream in{std::string(source)};
  std::string raw;
  while (std::getline(in, raw)) {
    std::string_view text = trim(raw);
    if (!text.starts_with("//")) {
      continue;
    }
    text = trim(text.substr(2));
    if (!text.starts_with(k_flags_marker)) {
      continue;
    }
    text.remove_prefix(k_flags_marker.size());
    size_t colon = text.find(':');
    if (colon == std::string_view::npos || (colon != 0 && text[0] != '-')) {
      continue;
    }
    std::string suffix(colon == 0 ? std::string_view() : text.substr(1, colon - 1));
    lines.try_emplace(suffix, split_words(text.substr(colon + 1)));
  }
  return lines;
}

void hash_field(Sha256Hasher& hasher, std::string_view name, std::string_view value)
{
  std::string record = std::string(name) + " " + std::to_string(value.size()) + "\n";
  record += value;
  record += "\n";
  hasher.update(std::as_bytes(std::span(record.data(), record.size())));
}

// The local headers `text` names with #include "...", in order.
std::vector<std::string> local_includes(std::string_view text)
{
  std::vector<std::string> names;
  std::istringstream in{std::string(text)};
  std::string raw;
  while (std::getline(in, raw)) {
    std::string_view line = trim(raw);
    if (!line.starts_with("#")) {
      continue;
    }
    line = trim(line.substr(1));
    if (!line.starts_with("include")) {
      continue;
    }
    line = trim(line.substr(std::string_view("include").size()));
    size_t close = line.find('"', 1);
    if (line.starts_with("\"") && close != std::string_view::npos) {
      names.emplace_back(line.substr(1, close - 1));
    }
  }
  return names;
}

// Hashes the text of `file` and of the local headers it includes, each once. A header that is not
// next to its includer is hashed by name only: it cannot be tracked, and the compile will say so
// if it is needed.
Expected<void> hash_source_tree(Sha256Hasher& hasher, const fs::path& file,
                                std::set<fs::path>& visited, int depth)
{
  TRY_ASSIGN(std::string text, read_text(file, "recipe source"));
  hash_field(hasher, "text", text);
  if (depth >= k_max_include_depth) {
    return {};
  }
  for (const std::string& name : local_includes(text)) {
    fs::path header = (file.parent_path() / name).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(header, ec)) {
      hash_field(hasher, "missing include", name);
      continue;
    }
    fs::path canonical = fs::weakly_canonical(header, ec);
    if (!visited.insert(ec ? header : canonical).second) {
      continue;
    }
    hash_field(hasher, "include", name);
    TRY(hash_source_tree(hasher, header, visited, depth + 1));
  }
  return {};
}

} // namespace

Expected<Recipe> parse_recipe(std::string_view text, const fs::path& recipe_path)
{
  ParseState state;
  state.file = recipe_path.string();
  state.recipe.recipe_path = recipe_path;
  int line = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    ++line;
    TRY(apply_line(state, line, text.substr(start, end - start)));
    start = end + 1;
  }
  TRY(finish_recipe(state, recipe_path));
  return std::move(state.recipe);
}

Expected<std::vector<Recipe>> load_recipes(const fs::path& folder)
{
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".recipe" && it->is_regular_file(ec)) {
      files.push_back(it->path());
    }
  }
  if (ec) {
    return make_error(ErrorCode::io, "recipes " + folder.string() + ": " + ec.message());
  }
  std::ranges::sort(files);
  std::vector<Recipe> recipes;
  std::map<std::string, fs::path, std::less<>> names;
  for (const fs::path& file : files) {
    TRY_ASSIGN(std::string text, read_text(file, "recipe"));
    TRY_ASSIGN(Recipe recipe, parse_recipe(text, file));
    auto [it, inserted] = names.try_emplace(recipe.name, file);
    if (!inserted) {
      return make_error(ErrorCode::invalid_argument, "recipe " + file.string() + ": name '" +
                                                         recipe.name + "' is already used by " +
                                                         it->second.string());
    }
    recipes.push_back(std::move(recipe));
  }
  return recipes;
}

bool recipe_serves(const Recipe& recipe, std::string_view kernel)
{
  if (!validate_kernel_name(kernel)) {
    return false;
  }
  if (std::ranges::find(recipe.kernels, kernel) != recipe.kernels.end()) {
    return true;
  }
  std::string name(kernel);
  return std::ranges::any_of(recipe.patterns, [&name](const std::string& pattern) {
    return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  });
}

Expected<CompileJob> make_compile_job(const Recipe& recipe, std::string_view target, Mode mode)
{
  TRY_ASSIGN(std::string arch, validate_target(target));
  if (std::ranges::find(recipe.targets, arch) == recipe.targets.end()) {
    return make_error(ErrorCode::not_found,
                      "recipe " + recipe.name + ": does not build for target " + arch);
  }
  if (recipe.language == SourceLanguage::ptx) {
    // The caller names the module (source) and the entry; the passes come from the recipe.
    CompileJob job;
    job.language = SourceLanguage::ptx;
    job.target = arch;
    job.passes = recipe.passes;
    job.pass_parameters = recipe.pass_parameters;
    job.mode = mode;
    return job;
  }
  TRY_ASSIGN(std::string source, read_text(recipe.source, "recipe " + recipe.name + ": source"));
  std::map<std::string, std::vector<std::string>, std::less<>> lines = source_flag_lines(source);
  std::string family = arch.substr(0, arch.size() - 2);
  auto chosen = lines.find(arch);
  if (chosen == lines.end()) {
    chosen = lines.find(family);
  }
  if (chosen == lines.end()) {
    chosen = lines.find("");
  }
  CompileJob job;
  job.source = recipe.source;
  job.language = recipe.language;
  job.target = arch;
  job.flags.emplace_back("-O3");
  if (chosen != lines.end()) {
    job.flags.insert(job.flags.end(), chosen->second.begin(), chosen->second.end());
  }
  job.flags.insert(job.flags.end(), recipe.flags.begin(), recipe.flags.end());
  if (mode == Mode::accuracy) {
    job.flags.push_back("-D" + recipe.accuracy_define);
  }
  job.wave64 = mode == Mode::fast && recipe.wave64_in_fast_mode;
  return job;
}

Expected<std::string> recipe_fingerprint(const Recipe& recipe)
{
  return recipe_fingerprint(recipe, translate::translator_fingerprint());
}

Expected<std::string> recipe_fingerprint(const Recipe& recipe, std::string_view translator)
{
  Sha256Hasher hasher;
  hash_field(hasher, "d4r-recipe-fingerprint", "1");
  hash_field(hasher, "name", recipe.name);
  hash_field(hasher, "version", std::to_string(recipe.version));
  switch (recipe.language) {
  case SourceLanguage::hip:
    hash_field(hasher, "language", "hip");
    break;
  case SourceLanguage::llvm_ir:
    hash_field(hasher, "language", "llvm_ir");
    break;
  case SourceLanguage::llvm_bitcode:
    hash_field(hasher, "language", "llvm_bitcode");
    break;
  case SourceLanguage::ptx:
    hash_field(hasher, "language", "ptx");
    hash_field(hasher, "translator", translator);
    break;
  }
  for (const std::string& flag : recipe.flags) {
    hash_field(hasher, "flag", flag);
  }
  hash_field(hasher, "accuracy_define", recipe.accuracy_define);
  hash_field(hasher, "wave64", recipe.wave64_in_fast_mode ? "fast" : "never");
  // Only when present: recipes without passes keep the fingerprints (and cache keys) they had.
  for (const std::string& pass : recipe.passes) {
    hash_field(hasher, "pass", pass);
  }
  for (const auto& [pass, params] : recipe.pass_parameters) {
    for (const auto& [param, value] : params) {
      hash_field(hasher, "pass parameter", pass + "." + param);
      hash_field(hasher, "value", value);
    }
  }
  if (recipe.language == SourceLanguage::ptx) {
    return to_hex(hasher.finish()); // the module is part of the cache key instead
  }
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(recipe.source, ec);
  std::set<fs::path> visited = {ec ? recipe.source : canonical};
  TRY(hash_source_tree(hasher, recipe.source, visited, 0));
  return to_hex(hasher.finish());
}

} // namespace d4r::compiler
