// The corpus as a second real producer writes it: clang 19's NVPTX backend (tests/ptx/clang/, built by
// tests/ptx/regenerate_clang.sh from our own CUDA and LLVM IR). Every module parses, prints and
// parses again to the same tree; every .entry, built alone as the daemon builds it (ptx_build.hpp),
// translates for the host and for gfx1100 and gfx1201 and links into a code object whose
// amdhsa.kernels note lists the PTX parameters at their offsets and sizes, equal to the note of the
// nvcc build of the same kernel (tests/ptx/) where both declare the same parameters.
//
// Run time (each .entry a test of its own; matrix_more's eleven wmma/mma kernels take minutes of
// AMDGPU codegen together): a module whose text differs from an earlier one only in its
// .target line (clang often writes the same PTX for sm_80 and sm_90) is translated once
// (DuplicatesDifferOnlyInTarget checks that they are such twins); the nvcc build is translated only
// for gfx1100, for its note. An entry that AMDGPU rejects by design is accepted only if the nvcc
// build of the same kernel is rejected with the same "unsupported: OP".
//
// ShareOfKernels (disabled; tests/ptx/clang/share.sh runs it) counts, for both producers, the
// kernels that translate for the host and all six AMDGPU targets.

#include "compiler/ptx/printer.hpp"
#include "compiler/ptx_build.hpp"
#include "test_compiler_translate_support.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

const fs::path k_ptx = D4R_PTX_DIR;

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Files under `folder`, recursively, relative to tests/ptx, sorted.
std::vector<std::string> ptx_files(const fs::path& folder, bool recursive)
{
  std::vector<std::string> files;
  auto add = [&](const fs::directory_entry& entry) {
    if (entry.path().extension() == ".ptx") {
      files.push_back(fs::relative(entry.path(), k_ptx).string());
    }
  };
  if (recursive) {
    std::ranges::for_each(fs::recursive_directory_iterator(folder), add);
  } else {
    std::ranges::for_each(fs::directory_iterator(folder), add);
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> clang_files()
{
  return ptx_files(k_ptx / "clang", true);
}

std::vector<std::string> nvcc_files()
{
  std::vector<std::string> files = ptx_files(k_ptx, false);
  std::vector<std::string> isa = ptx_files(k_ptx / "isa", false);
  files.insert(files.end(), isa.begin(), isa.end());
  return files;
}

// The text without its .target line.
std::string without_target(const std::string& text)
{
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(".target ")) {
      out += line + "\n";
    }
  }
  return out;
}

// The earlier clang file with the same text but for the .target line, if any. Computed once per
// process: every test process instantiates the suites.
std::optional<std::string> twin_of(const std::string& file)
{
  static const std::map<std::string, std::string> twins = [] {
    std::map<std::string, std::string> out;
    std::map<std::string, std::string> first_with_body;
    for (const std::string& other : clang_files()) {
      auto [at, inserted] = first_with_body.emplace(without_target(read_text(k_ptx / other)), other);
      if (!inserted) {
        out.emplace(other, at->second);
      }
    }
    return out;
  }();
  auto twin = twins.find(file);
  return twin == twins.end() ? std::nullopt : std::optional<std::string>(twin->second);
}

// "clang/isa/alu_float.sm_90.ptx" -> "alu_float"; "isa/alu_float.sm_90.ptx" too.
std::string source_of(const std::string& file)
{
  std::string name = fs::path(file).filename().string();
  return name.substr(0, name.find('.'));
}

// The nvcc build of a clang file's source: the same target if nvcc has it, else nvcc's lowest.
std::optional<std::string> nvcc_twin(const std::string& file)
{
  const std::string source = source_of(file);
  const std::string name = fs::path(file).filename().string();
  const bool isa = file.starts_with("clang/isa/");
  std::optional<std::string> first;
  for (const std::string& candidate : nvcc_files()) {
    if (candidate.starts_with("isa/") != isa || source_of(candidate) != source) {
      continue;
    }
    if (fs::path(candidate).filename().string() == name) {
      return candidate;
    }
    if (!first) {
      first = candidate;
    }
  }
  return first;
}

std::vector<std::string> entries_of(const ptx::Module& module)
{
  std::vector<std::string> names;
  for (const ptx::Item& item : module.items) {
    if (const auto* function = std::get_if<ptx::Function>(&item.value); function && function->is_entry) {
      names.push_back(function->name);
    }
  }
  return names;
}

// One entry alone, as the daemon builds it.
Expected<ptx::Module> entry_module(const std::string& text, const std::string& entry)
{
  PtxBuild build;
  build.entry = entry;
  std::string log;
  return rewrite_ptx(text, build, log);
}

// The amdhsa.kernels note of `entry` in a translation for `target`; an error message otherwise.
Expected<NoteKernel> linked_note(Translation& translation, const std::string& target, const std::string& entry)
{
  Expected<std::vector<std::byte>> object = code_object(translation, target);
  if (!object) {
    return std::unexpected(object.error());
  }
  std::string error;
  std::vector<NoteKernel> notes = read_note_kernels(*object, error);
  auto note = std::find_if(notes.begin(), notes.end(), [&](const NoteKernel& kernel) { return kernel.name == entry; });
  if (!error.empty() || note == notes.end()) {
    return std::unexpected(Error{ErrorCode::internal, "no amdhsa.kernels note for " + entry + " " + error});
  }
  return *note;
}

// "unsupported: bar.red.popc.u32" of an error message, without the line; empty if it has none.
std::string unsupported_of(const std::string& message)
{
  const size_t at = message.find("unsupported: ");
  if (at == std::string::npos) {
    return "";
  }
  std::string what = message.substr(at);
  return what.substr(0, what.find(" at line"));
}

// An error without the kernel, line and parameter names, so that equal reasons count together.
std::string reason_of(const std::string& message)
{
  if (std::string unsupported = unsupported_of(message); !unsupported.empty()) {
    return unsupported;
  }
  std::string reason = message;
  if (size_t line = reason.rfind("line "); line != std::string::npos && reason.find(": ", line) != std::string::npos) {
    reason = reason.substr(reason.find(": ", line) + 2);
  }
  if (size_t parameter = reason.find("kernel parameter "); parameter != std::string::npos) {
    const size_t name = parameter + 17;
    reason.replace(name, reason.find(' ', name) - name, "P");
  }
  return reason;
}

// (size, align) of each parameter: what "the same signature" means across producers, which spell
// types differently (.u64 / .b64).
std::vector<std::pair<int64_t, int64_t>> shape_of(const KernelSignature& signature)
{
  std::vector<std::pair<int64_t, int64_t>> shape;
  for (const KernelParam& param : signature.params) {
    shape.emplace_back(param.size, param.align);
  }
  return shape;
}

std::string test_name(const testing::TestParamInfo<std::string>& info)
{
  std::string name = info.param;
  for (char& c : name) {
    c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

class ClangRoundTrip : public testing::TestWithParam<std::string> {};

TEST_P(ClangRoundTrip, ParsesPrintsAndParsesToTheSameTree)
{
  const std::string text = read_text(k_ptx / GetParam());
  Expected<ptx::Module> first = ptx::parse_module(text);
  ASSERT_TRUE(first) << first.error().message;
  const std::string printed = ptx::print_module(*first);
  Expected<ptx::Module> second = ptx::parse_module(printed);
  ASSERT_TRUE(second) << "printed: " << second.error().message;
  EXPECT_TRUE(*first == *second) << "trees differ after a round trip";
  EXPECT_EQ(ptx::print_module(*second), printed);
  EXPECT_FALSE(entries_of(*first).empty());
}

INSTANTIATE_TEST_SUITE_P(Clang, ClangRoundTrip, testing::ValuesIn(clang_files()), test_name);

// One .entry of one clang file: each is a test of its own, so that a file of many large kernels
// (matrix_more: eleven wmma/mma kernels, minutes of AMDGPU codegen) is not one test's time.
struct FileEntry {
  std::string file;
  std::string entry; // empty: the file does not parse (the test says why)
};

void PrintTo(const FileEntry& param, std::ostream* out)
{
  *out << param.file << " " << param.entry;
}

class ClangTranslate : public testing::TestWithParam<FileEntry> {};

TEST_P(ClangTranslate, EveryEntryTranslatesAndLinksWithTheNvccKernargs)
{
  const std::string file = GetParam().file;
  const std::string text = read_text(k_ptx / file);
  Expected<ptx::Module> module = ptx::parse_module(text);
  ASSERT_TRUE(module) << module.error().message;
  const std::optional<std::string> nvcc = nvcc_twin(file);
  const std::string nvcc_text = nvcc ? read_text(k_ptx / *nvcc) : "";
  std::vector<std::string> nvcc_entries;
  if (nvcc) {
    Expected<ptx::Module> parsed = ptx::parse_module(nvcc_text);
    ASSERT_TRUE(parsed) << *nvcc << ": " << parsed.error().message;
    nvcc_entries = entries_of(*parsed);
  }
  ASSERT_EQ(std::ranges::count(entries_of(*module), GetParam().entry), 1);
  for (const std::string& entry : {GetParam().entry}) {
    SCOPED_TRACE(entry);
    Expected<ptx::Module> alone = entry_module(text, entry);
    ASSERT_TRUE(alone) << alone.error().message;
    Expected<Translation> host = translate_module(*alone, host_options());
    if (!host && std::ranges::count(nvcc_entries, entry) > 0) {
      // A form the translator rejects everywhere (st.async, an image query): the nvcc build of the
      // kernel is refused with the same message, so it is not this producer's problem.
      Expected<ptx::Module> nvcc_alone = entry_module(nvcc_text, entry);
      ASSERT_TRUE(nvcc_alone) << nvcc_alone.error().message;
      Expected<Translation> theirs = translate_module(*nvcc_alone, host_options());
      if (!theirs && !unsupported_of(host.error().message).empty() &&
          unsupported_of(theirs.error().message) == unsupported_of(host.error().message)) {
        std::cout << "share: clang " << file << " " << entry
                  << " rejected as in the nvcc build: " << host.error().message << "\n";
        continue;
      }
    }
    ASSERT_TRUE(host) << host.error().message;
    EXPECT_EQ(verify_text(*host->module), "");
    ASSERT_EQ(host->kernels.size(), 1U);
    const KernelSignature signature = host->kernels.front();
    std::optional<NoteKernel> gfx1100;
    bool rejected = false;
    for (const char* target : {"gfx1100", "gfx1201"}) {
      SCOPED_TRACE(target);
      Expected<Translation> gpu = translate_module(*alone, amdgpu_options(target));
      if (!gpu && std::ranges::count(nvcc_entries, entry) > 0) {
        // What the translator rejects on AMDGPU by design (bar.red with a thread count could hang)
        // it rejects in the nvcc build of the kernel too: then it is not this producer's problem.
        Expected<ptx::Module> nvcc_alone = entry_module(nvcc_text, entry);
        ASSERT_TRUE(nvcc_alone) << nvcc_alone.error().message;
        Expected<Translation> theirs = translate_module(*nvcc_alone, amdgpu_options(target));
        if (!theirs && unsupported_of(theirs.error().message) == unsupported_of(gpu.error().message) &&
            !unsupported_of(gpu.error().message).empty()) {
          std::cout << "share: clang " << file << " " << entry << " " << target
                    << " rejected as in the nvcc build: " << gpu.error().message << "\n";
          rejected = true;
          continue;
        }
      }
      ASSERT_TRUE(gpu) << gpu.error().message;
      Expected<NoteKernel> note = linked_note(*gpu, target, entry);
      ASSERT_TRUE(note) << note.error().message;
      ASSERT_EQ(note->args.size(), signature.params.size());
      for (size_t i = 0; i < signature.params.size(); ++i) {
        EXPECT_EQ(note->args[i].offset, signature.params[i].offset) << i;
        EXPECT_EQ(note->args[i].size, signature.params[i].size) << i;
      }
      if (std::string(target) == "gfx1100") {
        gfx1100 = *note;
      }
    }
    std::string compared = "no nvcc build";
    if (rejected || !gfx1100) {
      continue;
    }
    if (std::ranges::count(nvcc_entries, entry) > 0) {
      compared = "nvcc (" + *nvcc + ") does not translate";
      Expected<ptx::Module> nvcc_alone = entry_module(nvcc_text, entry);
      ASSERT_TRUE(nvcc_alone) << nvcc_alone.error().message;
      Expected<Translation> theirs = translate_module(*nvcc_alone, amdgpu_options("gfx1100"));
      if (theirs) {
        ASSERT_EQ(theirs->kernels.size(), 1U);
        if (shape_of(theirs->kernels.front()) == shape_of(signature)) {
          Expected<NoteKernel> note = linked_note(*theirs, "gfx1100", entry);
          ASSERT_TRUE(note) << *nvcc << ": " << note.error().message;
          ASSERT_EQ(note->args.size(), gfx1100->args.size());
          for (size_t i = 0; i < note->args.size(); ++i) {
            EXPECT_EQ(gfx1100->args[i].offset, note->args[i].offset) << *nvcc << " " << i;
            EXPECT_EQ(gfx1100->args[i].size, note->args[i].size) << *nvcc << " " << i;
          }
          compared = "kernargs equal to " + *nvcc;
        } else {
          compared = "parameters differ from " + *nvcc;
        }
      }
    }
    std::cout << "share: clang " << file << " " << entry << " ok (" << compared << ")\n";
  }
}

std::vector<std::string> translated_files()
{
  std::vector<std::string> files;
  for (const std::string& file : clang_files()) {
    if (!twin_of(file)) {
      files.push_back(file);
    }
  }
  return files;
}

std::vector<FileEntry> translated_entries()
{
  std::vector<FileEntry> entries;
  for (const std::string& file : translated_files()) {
    Expected<ptx::Module> module = ptx::parse_module(read_text(k_ptx / file));
    if (!module) {
      entries.push_back(FileEntry{file, ""});
      continue;
    }
    for (const std::string& entry : entries_of(*module)) {
      entries.push_back(FileEntry{file, entry});
    }
  }
  return entries;
}

std::string entry_test_name(const testing::TestParamInfo<FileEntry>& info)
{
  std::string name = info.param.file + "_" + info.param.entry;
  for (char& c : name) {
    c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Clang, ClangTranslate, testing::ValuesIn(translated_entries()),
                         entry_test_name);

TEST(ClangCorpusFiles, EveryProducerAndSourceIsThere)
{
  const std::vector<std::string> files = clang_files();
  auto has = [&](const std::string& file) { return std::ranges::count(files, file) == 1; };
  // One per kind of producer: clang's CUDA mode (corpus and ISA kernels, through the surface shim),
  // -nocudainc, and llc from IR (ours and clang's -emit-llvm output).
  for (const char* file : {"clang/surface_store.sm_80.ptx", "clang/texture_layers.sm_86.ptx",
                           "clang/isa/surface_modes.sm_90.ptx", "clang/isa/alu_float_ftz.sm_80.ptx",
                           "clang/nocudainc/sr_module.sm_80.ptx", "clang/llc/triton_like.sm_90.ptx",
                           "clang/llc/mma_tile.sm_80.ptx"}) {
    EXPECT_TRUE(has(file)) << file;
  }
  // Every nvcc source has a clang build for sm_90, except the ISA kernels clang 19 cannot build
  // as nvcc does, listed here so that the gap stays visible:
  // - cluster_hints: clang 19 ignores __cluster_dims__ (and __grid_constant__), so its PTX lacks
  //   the kernels' cluster directives: another kernel than nvcc's;
  // - tensor_copies: clang 19 refuses `__shared__ alignas(N)` ("an attribute list cannot appear
  //   here") and ignores the __grid_constant__ its tensor-map parameters need; prefetch_tensor
  //   (tensor-map parameters too);
  // - st_async: clang 19 ignores __cluster_dims__, without which st.async and red.async do not
  //   translate (st_async_maxrank's __launch_bounds__ cluster bound it keeps);
  // An sm_90a file (wgmma*, tensormap.replace) needs no twin: the script builds sm_80 and sm_90,
  // where ptxas refuses those forms; a source with an sm_90 build too is checked through that one.
  const std::set<std::string> without_clang_build = {"cluster_hints", "tensor_copies",
                                                     "prefetch_tensor", "st_async"};
  for (const std::string& nvcc : nvcc_files()) {
    if (nvcc.ends_with(".sm_90a.ptx")) {
      continue;
    }
    const std::string folder = nvcc.starts_with("isa/") ? "clang/isa/" : "clang/";
    if (nvcc.starts_with("isa/") && without_clang_build.contains(source_of(nvcc))) {
      EXPECT_FALSE(has(folder + source_of(nvcc) + ".sm_90.ptx"))
          << nvcc << " has a clang build now: take it off the list";
      continue;
    }
    EXPECT_TRUE(has(folder + source_of(nvcc) + ".sm_90.ptx"))
        << nvcc << " has no clang build: run tests/ptx/regenerate_clang.sh";
  }
}

TEST(ClangCorpusFiles, DuplicatesDifferOnlyInTarget)
{
  int twins = 0;
  for (const std::string& file : clang_files()) {
    if (std::optional<std::string> twin = twin_of(file)) {
      EXPECT_EQ(source_of(*twin), source_of(file));
      EXPECT_NE(read_text(k_ptx / *twin), read_text(k_ptx / file)) << "the same file twice: " << file;
      ++twins;
    }
  }
  std::cout << twins << " modules translated through their twin\n";
}

TEST(ClangCorpusFiles, ClangSpellsThingsNvccDoesNot)
{
  // What makes this producer worth testing: spellings nvcc's files do not have.
  const std::string surface = read_text(k_ptx / "clang/surface_store.sm_90.ptx");
  EXPECT_NE(surface.find("Generated by LLVM NVPTX Back-End"), std::string::npos);
  EXPECT_NE(surface.find(".version 8.5"), std::string::npos);
  EXPECT_NE(surface.find("sust.b.2d.v4.b16.zero [%rd"), std::string::npos) << "the shim's inline PTX";
  const std::string llc = read_text(k_ptx / "clang/llc/triton_like.sm_80.ptx");
  EXPECT_NE(llc.find(".version 7.0"), std::string::npos) << "llc's own lowest PTX ISA for sm_80";
  EXPECT_NE(llc.find(".maxntid 128, 1, 1"), std::string::npos);
  EXPECT_NE(llc.find("@%p"), std::string::npos);
  const std::string layers = read_text(k_ptx / "clang/texture_layers.sm_86.ptx");
  EXPECT_NE(layers.find("mov.b64 \t%rd"), std::string::npos);
}

// Both producers, every kernel of every file (twins included), host and the six AMDGPU targets.
TEST(ClangCorpusShare, DISABLED_ShareOfKernels)
{
  std::map<std::string, std::pair<int, int>> share; // producer -> (translated everywhere, kernels)
  std::map<std::string, int> reasons;
  auto count = [&](const std::string& producer, const std::string& file) {
    const std::string text = read_text(k_ptx / file);
    Expected<ptx::Module> module = ptx::parse_module(text);
    if (!module) {
      std::cout << "share: " << producer << " " << file << " does not parse: " << module.error().message << "\n";
      return;
    }
    for (const std::string& entry : entries_of(*module)) {
      ++share[producer].second;
      Expected<ptx::Module> alone = entry_module(text, entry);
      std::string error = alone ? "" : alone.error().message;
      std::vector<TranslateOptions> options = {host_options()};
      for (const char* target : k_targets) {
        options.push_back(amdgpu_options(target));
      }
      for (const TranslateOptions& option : options) {
        if (!error.empty()) {
          break;
        }
        Expected<Translation> translation = translate_module(*alone, option);
        if (!translation) {
          error = translation.error().message;
        } else if (option.kind == TargetKind::amdgpu) {
          Expected<NoteKernel> note = linked_note(*translation, option.processor, entry);
          error = note ? "" : note.error().message;
        }
      }
      if (error.empty()) {
        ++share[producer].first;
      } else {
        ++reasons[producer + ": " + reason_of(error)];
      }
      std::cout << "share: " << producer << " " << file << " " << entry << " "
                << (error.empty() ? "ok" : error) << "\n";
    }
  };
  for (const std::string& file : nvcc_files()) {
    count("nvcc", file);
  }
  for (const std::string& file : clang_files()) {
    count("clang", file);
  }
  for (const auto& [producer, counts] : share) {
    std::cout << "share of kernels that translate for the host and all six targets: " << producer << " "
              << counts.first << " of " << counts.second << "\n";
  }
  for (const auto& [reason, n] : reasons) {
    std::cout << "  " << n << " x " << reason << "\n";
  }
  EXPECT_FALSE(share.empty());
}

} // namespace
} // namespace d4r::compiler::translate::test
