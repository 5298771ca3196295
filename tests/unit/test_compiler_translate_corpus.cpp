// Every corpus module (tests/ptx/*.ptx) for the host and the six AMDGPU targets: it translates, or
// fails only with "unsupported:" naming an instruction of a later stage (tex, suld/sust, FP8 cvt,
// mma); each translated kernel links into a code object whose amdhsa.kernels note lists the PTX
// parameters at their offsets and sizes.

#include "test_compiler_translate_support.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> corpus_files()
{
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(D4R_PTX_DIR)) {
    if (entry.path().extension() == ".ptx") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether an error names an instruction of stages 4-6.
bool is_later_stage(const std::string& message)
{
  size_t at = message.find("unsupported: ");
  if (at == std::string::npos) {
    return false;
  }
  std::string opcode = message.substr(at + 13);
  bool image = opcode.starts_with("tex.") || opcode.starts_with("suld.") ||
               opcode.starts_with("sust.");
  bool fp8 = opcode.starts_with("cvt.") &&
             (opcode.find("e4m3") != std::string::npos || opcode.find("e5m2") != std::string::npos);
  return image || fp8 || opcode.starts_with("mma.");
}

void check_kernarg_notes(Translation& translation, const std::string& target)
{
  Expected<std::vector<std::byte>> object = code_object(translation, target);
  ASSERT_TRUE(object) << object.error().message;
  std::string error;
  std::vector<NoteKernel> notes = read_note_kernels(*object, error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(notes.size(), translation.kernels.size());
  for (const KernelSignature& signature : translation.kernels) {
    auto note = std::find_if(notes.begin(), notes.end(),
                             [&](const NoteKernel& kernel) { return kernel.name == signature.name; });
    ASSERT_NE(note, notes.end()) << signature.name;
    ASSERT_EQ(note->args.size(), signature.params.size()) << signature.name;
    for (size_t i = 0; i < signature.params.size(); ++i) {
      EXPECT_EQ(note->args[i].offset, signature.params[i].offset) << signature.name << " " << i;
      EXPECT_EQ(note->args[i].size, signature.params[i].size) << signature.name << " " << i;
    }
  }
}

class TranslateCorpus : public testing::TestWithParam<std::string> {};

// One test per corpus file, so ctest runs them in parallel and names the file that fails.
TEST_P(TranslateCorpus, TranslatesForEveryTargetOrNamesALaterStage)
{
  fs::path file = fs::path(D4R_PTX_DIR) / GetParam();
  Expected<ptx::Module> module = ptx::parse_module(read_text(file));
  ASSERT_TRUE(module) << module.error().message;
  Expected<Translation> host = translate_module(*module, host_options());
  if (!host) {
    EXPECT_TRUE(is_later_stage(host.error().message)) << host.error().message;
    std::cout << GetParam() << ": " << host.error().message << "\n";
  } else {
    EXPECT_EQ(verify_text(*host->module), "");
    std::cout << GetParam() << ": translated, " << host->kernels.size() << " kernels\n";
  }
  for (const char* target : k_targets) {
    SCOPED_TRACE(target);
    Expected<Translation> gpu = translate_module(*module, amdgpu_options(target));
    ASSERT_EQ(gpu.has_value(), host.has_value())
        << (gpu ? std::string("host failed, amdgpu did not") : gpu.error().message);
    if (!gpu) {
      EXPECT_EQ(gpu.error().message, host.error().message);
      continue;
    }
    check_kernarg_notes(*gpu, target);
  }
}

std::vector<std::string> corpus_names()
{
  std::vector<std::string> names;
  for (const fs::path& file : corpus_files()) {
    names.push_back(file.filename().string());
  }
  return names;
}

std::string test_name(const testing::TestParamInfo<std::string>& info)
{
  std::string name = info.param;
  for (char& c : name) {
    c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, TranslateCorpus, testing::ValuesIn(corpus_names()), test_name);

TEST(TranslateCorpusFiles, CorpusIsThere)
{
  // sr_module.ptx and rr_module.ptx (stage 1-3 instructions only) and the stage 4-6 corpus.
  EXPECT_GE(corpus_files().size(), 3U);
}

TEST(TranslateCorpusFiles, FirstFixturesTranslateToTheExpectedKernels)
{
  for (const char* name : {"sr_module.ptx", "rr_module.ptx"}) {
    SCOPED_TRACE(name);
    Expected<Translation> host =
        translate_text(read_text(fs::path(D4R_PTX_DIR) / name), host_options());
    ASSERT_TRUE(host) << host.error().message;
    ASSERT_FALSE(host->kernels.empty());
    for (const KernelSignature& kernel : host->kernels) {
      const llvm::Function* function = host->module->getFunction(kernel.name);
      ASSERT_NE(function, nullptr) << kernel.name;
      EXPECT_EQ(function->arg_size(), 2U);
      EXPECT_FALSE(function->hasInternalLinkage());
    }
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
