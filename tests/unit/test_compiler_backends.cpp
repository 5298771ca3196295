// The compile backends (compiler/backends/): llvm (clang driver -> bitcode -> in-process codegen
// + lld), clang (the driver alone) and comgr (the system's libamd_comgr, loaded at run time). Each
// code object is checked by its metadata note (compiler::read_launch_meta) and by disassembly.
// The compile that aborts LLVM (tests/compiler/cannot_select_gfx1100.ll for gfx11) is left to the
// worker tests: it would take this process down.

#include "compiler/backend.hpp"
#include "compiler/backends/backend_factory.hpp"
#include "compiler/launch_meta.hpp"
#include "util/kernel_identity.hpp"

#include "tests/support/read_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace d4r::compiler {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path k_tests_dir = D4R_TEST_SOURCE_DIR;
const fs::path k_simple_hip = fs::path(D4R_KERNELS_DIR) / "testdata/d4r_test_simple.hip";

class BackendTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (fs::path(::testing::TempDir()) / "test_backends_XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    char* made = ::mkdtemp(buffer.data());
    ASSERT_NE(made, nullptr);
    m_dir = made;
  }
  void TearDown() override
  {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }

  CompileJob job(const fs::path& source, SourceLanguage language, std::string target, bool wave64)
  {
    CompileJob result;
    result.source = source;
    result.language = language;
    result.target = std::move(target);
    result.wave64 = wave64;
    result.work_dir = m_dir / ("work" + std::to_string(m_jobs++));
    return result;
  }

  // `${D4R_LLVM_OBJDUMP} -d --mcpu=T` of a code object.
  std::string disassemble(const std::vector<std::byte>& object, const std::string& mcpu)
  {
    fs::path file = m_dir / ("object" + std::to_string(m_jobs++) + ".hsaco");
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(object.data()),
               static_cast<std::streamsize>(object.size()));
    std::string command =
        std::string(D4R_LLVM_OBJDUMP) + " -d --mcpu=" + mcpu + " '" + file.string() + "' 2>&1";
    std::string text;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
      return text;
    }
    std::array<char, 4096> chunk{};
    size_t read = 0;
    while ((read = std::fread(chunk.data(), 1, chunk.size(), pipe)) > 0) {
      text.append(chunk.data(), read);
    }
    ::pclose(pipe);
    return text;
  }

  // Compiles `source`'s kernel `kernel` and checks target, wave size and two instructions.
  void expect_kernel(Backend& backend, const CompileJob& compile_job, const std::string& kernel,
                     const std::string& instruction)
  {
    SCOPED_TRACE(std::string(backend.name()) + " " + compile_job.target +
                 (compile_job.wave64 ? " wave64" : " wave32"));
    Expected<CompileOutput> output = backend.compile(compile_job);
    ASSERT_TRUE(output) << output.error().message;
    Expected<LaunchMeta> meta = read_launch_meta(output->code_object, kernel);
    ASSERT_TRUE(meta) << meta.error().message;
    EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--" + compile_job.target);
    EXPECT_EQ(meta->main.name, kernel);
    EXPECT_EQ(meta->main.wave_size, compile_job.wave64 ? 64U : 32U);
    std::string text = disassemble(output->code_object, compile_job.target);
    EXPECT_THAT(text, HasSubstr("<" + kernel + ">:"));
    EXPECT_THAT(text, HasSubstr("s_endpgm"));
    EXPECT_THAT(text, HasSubstr(instruction));
  }

  fs::path m_dir;
  int m_jobs = 0;
};

// A backend over a comgr library, or null (the test skips) where this machine has none.
std::unique_ptr<Backend> system_comgr()
{
  Expected<std::unique_ptr<Backend>> comgr = make_comgr_backend(BackendOptions{});
  return comgr ? std::move(*comgr) : nullptr;
}

// The ISA a comgr 2.x knows among those the test compiles for.
std::string comgr_test_target(const Backend& comgr)
{
  return comgr.supports("gfx1030") ? "gfx1030" : "gfx906";
}

TEST_F(BackendTest, LlvmCompilesHipForEveryTargetInBothWaveSizes)
{
  std::unique_ptr<Backend> llvm = make_llvm_backend(BackendOptions{});
  for (std::string_view target : k_known_targets) {
    for (bool wave64 : {false, true}) {
      expect_kernel(*llvm, job(k_simple_hip, SourceLanguage::hip, std::string(target), wave64),
                    "d4r_test_simple", "global_store_b32");
    }
  }
}

TEST_F(BackendTest, LlvmCompilesLlvmIrDirectly)
{
  std::unique_ptr<Backend> llvm = make_llvm_backend(BackendOptions{});
  fs::path source = k_tests_dir / "compiler/simple_kernel.ll";
  expect_kernel(*llvm, job(source, SourceLanguage::llvm_ir, "gfx1101", false), "d4r_ir_simple",
                "v_mul_f32");
  expect_kernel(*llvm, job(source, SourceLanguage::llvm_ir, "gfx1200", true), "d4r_ir_simple",
                "v_mul_f32");
}

TEST_F(BackendTest, LlvmCompilesBitcodeFromTheHipPath)
{
  // The HIP path leaves clang's bitcode in the work folder: compiled again as llvm_bitcode.
  std::unique_ptr<Backend> llvm = make_llvm_backend(BackendOptions{});
  CompileJob hip = job(k_simple_hip, SourceLanguage::hip, "gfx1103", false);
  ASSERT_TRUE(llvm->compile(hip));
  ASSERT_TRUE(fs::exists(hip.work_dir / "x.bc"));
  fs::path bitcode = m_dir / "simple.bc";
  fs::copy_file(hip.work_dir / "x.bc", bitcode);
  expect_kernel(*llvm, job(bitcode, SourceLanguage::llvm_bitcode, "gfx1103", false),
                "d4r_test_simple", "global_store_b32");
}

TEST_F(BackendTest, LlvmSelectsFp8ConversionOnGfx12)
{
  std::unique_ptr<Backend> llvm = make_llvm_backend(BackendOptions{});
  expect_kernel(*llvm,
                job(k_tests_dir / "compiler/cannot_select_gfx1100.ll", SourceLanguage::llvm_ir,
                    "gfx1201", false),
                "d4r_cannot_select", "v_cvt_pk_f32_fp8");
}

TEST_F(BackendTest, LlvmRejectsHipSyntaxErrorWithTheMessage)
{
  std::unique_ptr<Backend> llvm = make_llvm_backend(BackendOptions{});
  Expected<CompileOutput> output = llvm->compile(
      job(k_tests_dir / "compiler/syntax_error.hip", SourceLanguage::hip, "gfx1101", false));
  ASSERT_FALSE(output);
  EXPECT_EQ(output.error().code, ErrorCode::rejected);
  EXPECT_THAT(output.error().message, HasSubstr("llvm backend: syntax_error.hip for gfx1101"));
  EXPECT_THAT(output.error().message, HasSubstr("expected ';'"));
}

TEST_F(BackendTest, LlvmRejectsInvalidIr)
{
  std::unique_ptr<Backend> llvm = make_llvm_backend(BackendOptions{});
  Expected<CompileOutput> output = llvm->compile(
      job(k_tests_dir / "compiler/invalid_module.ll", SourceLanguage::llvm_ir, "gfx1100", false));
  ASSERT_FALSE(output);
  EXPECT_EQ(output.error().code, ErrorCode::rejected);
  EXPECT_THAT(output.error().message, HasSubstr("%missing"));
}

TEST_F(BackendTest, LlvmRefusesAnUnknownTarget)
{
  std::unique_ptr<Backend> llvm = make_llvm_backend(BackendOptions{});
  EXPECT_TRUE(llvm->supports("gfx1101"));
  EXPECT_FALSE(llvm->supports("gfx9999"));
  Expected<CompileOutput> output =
      llvm->compile(job(k_simple_hip, SourceLanguage::hip, "gfx9999", false));
  ASSERT_FALSE(output);
  EXPECT_EQ(output.error().code, ErrorCode::invalid_argument);
}

TEST_F(BackendTest, MissingClangIsUnavailable)
{
  BackendOptions options;
  options.clang = m_dir / "no-such-clang++";
  for (std::unique_ptr<Backend>& backend :
       std::array{make_llvm_backend(options), make_clang_backend(options)}) {
    SCOPED_TRACE(backend->name());
    Expected<CompileOutput> output =
        backend->compile(job(k_simple_hip, SourceLanguage::hip, "gfx1101", false));
    ASSERT_FALSE(output);
    EXPECT_EQ(output.error().code, ErrorCode::unavailable);
    EXPECT_THAT(output.error().message, HasSubstr("no-such-clang++"));
    EXPECT_THAT(backend->fingerprint(), HasSubstr("clang unavailable"));
  }
}

TEST_F(BackendTest, ClangCompilesHipForTwoTargets)
{
  std::unique_ptr<Backend> clang = make_clang_backend(BackendOptions{});
  EXPECT_EQ(clang->name(), "clang");
  expect_kernel(*clang, job(k_simple_hip, SourceLanguage::hip, "gfx1102", false), "d4r_test_simple",
                "global_store_b32");
  expect_kernel(*clang, job(k_simple_hip, SourceLanguage::hip, "gfx1201", true), "d4r_test_simple",
                "global_store_b32");
}

// The same HIP source compiled in two work folders (every build gets its own) from two copies at
// different paths gives the same bytes, through the clang driver and through the llvm backend:
// what lets two daemons, or a daemon and a remote build server, compare their objects.
TEST_F(BackendTest, HipBuildsAreByteForByteReproducibleAcrossFolders)
{
  const std::string source = d4r::testing::read_file(k_simple_hip);
  ASSERT_FALSE(source.empty());
  std::unique_ptr<Backend> backends[] = {make_llvm_backend(BackendOptions{}), make_clang_backend(BackendOptions{})};
  for (std::unique_ptr<Backend>& backend : backends) {
    SCOPED_TRACE(std::string(backend->name()));
    std::vector<std::vector<std::byte>> objects;
    for (const char* folder : {"copy-a", "somewhere/else/copy-b"}) {
      fs::create_directories(m_dir / folder);
      const fs::path copy = m_dir / folder / "kernel.hip";
      std::ofstream(copy) << source;
      CompileJob compile_job = job(copy, SourceLanguage::hip, "gfx1100", false);
      compile_job.flags = {"-I" + k_simple_hip.parent_path().string()}; // the header it includes
      Expected<CompileOutput> output = backend->compile(compile_job);
      ASSERT_TRUE(output) << output.error().message;
      objects.push_back(output->code_object);
    }
    EXPECT_EQ(objects[0], objects[1]) << "the object depends on where its source or work folder was";
  }
}

TEST_F(BackendTest, ClangRejectsHipSyntaxErrorWithTheMessage)
{
  std::unique_ptr<Backend> clang = make_clang_backend(BackendOptions{});
  Expected<CompileOutput> output = clang->compile(
      job(k_tests_dir / "compiler/syntax_error.hip", SourceLanguage::hip, "gfx1200", false));
  ASSERT_FALSE(output);
  EXPECT_EQ(output.error().code, ErrorCode::rejected);
  EXPECT_THAT(output.error().message, HasSubstr("expected ';'"));
}

TEST_F(BackendTest, FingerprintsAreStableAndDifferBetweenBackends)
{
  BackendOptions options;
  std::string llvm = make_llvm_backend(options)->fingerprint();
  std::string clang = make_clang_backend(options)->fingerprint();
  EXPECT_EQ(llvm, make_llvm_backend(options)->fingerprint());
  EXPECT_EQ(clang, make_clang_backend(options)->fingerprint());
  EXPECT_THAT(llvm, HasSubstr("llvm 19."));
  EXPECT_THAT(llvm, HasSubstr("clang version"));
  EXPECT_THAT(clang, HasSubstr("clang version"));
  EXPECT_NE(llvm, clang);
  if (std::unique_ptr<Backend> comgr = system_comgr()) {
    std::string fingerprint = comgr->fingerprint();
    EXPECT_THAT(fingerprint, HasSubstr("comgr "));
    EXPECT_EQ(fingerprint, system_comgr()->fingerprint());
    EXPECT_NE(fingerprint, llvm);
    EXPECT_NE(fingerprint, clang);
  }
}

TEST_F(BackendTest, MakeBackendByName)
{
  for (std::string_view name : {"llvm", "clang"}) {
    Expected<std::unique_ptr<Backend>> backend = make_backend(name, BackendOptions{});
    ASSERT_TRUE(backend) << backend.error().message;
    EXPECT_EQ((*backend)->name(), name);
  }
  Expected<std::unique_ptr<Backend>> bogus = make_backend("gcc", BackendOptions{});
  ASSERT_FALSE(bogus);
  EXPECT_EQ(bogus.error().code, ErrorCode::invalid_argument);
}

TEST_F(BackendTest, ComgrLoadsAndProbesItsIsas)
{
  std::unique_ptr<Backend> comgr = system_comgr();
  if (comgr == nullptr) {
    GTEST_SKIP() << "no libamd_comgr on this machine";
  }
  EXPECT_EQ(comgr->name(), "comgr");
  EXPECT_TRUE(comgr->supports("gfx1030") || comgr->supports("gfx906"));
  EXPECT_FALSE(comgr->supports("gfx9999"));
  // ROCm 5.2.3's comgr (Debian's 2.4) predates gfx11; a newer comgr would know it.
  if (comgr->fingerprint().find("comgr 2.4") != std::string::npos) {
    EXPECT_FALSE(comgr->supports("gfx1101"));
  }
  Expected<std::unique_ptr<Backend>> by_name = make_backend("comgr", BackendOptions{});
  ASSERT_TRUE(by_name);
  EXPECT_EQ((*by_name)->name(), "comgr");
}

TEST_F(BackendTest, ComgrCompilesHipForAnIsaItSupports)
{
  std::unique_ptr<Backend> comgr = system_comgr();
  if (comgr == nullptr) {
    GTEST_SKIP() << "no libamd_comgr on this machine";
  }
  std::string target = comgr_test_target(*comgr);
  // gfx9 and gfx10 spell the 32-bit global store this way (gfx11 says global_store_b32).
  const char* store = "global_store_dword";
  expect_kernel(*comgr, job(k_simple_hip, SourceLanguage::hip, target, false), "d4r_test_simple",
                store);
  expect_kernel(*comgr, job(k_simple_hip, SourceLanguage::hip, target, true), "d4r_test_simple",
                store);
}

TEST_F(BackendTest, ComgrRejectsHipSyntaxErrorAndUnsupportedIsa)
{
  std::unique_ptr<Backend> comgr = system_comgr();
  if (comgr == nullptr) {
    GTEST_SKIP() << "no libamd_comgr on this machine";
  }
  Expected<CompileOutput> output =
      comgr->compile(job(k_tests_dir / "compiler/syntax_error.hip", SourceLanguage::hip,
                         comgr_test_target(*comgr), false));
  ASSERT_FALSE(output);
  EXPECT_EQ(output.error().code, ErrorCode::rejected);
  EXPECT_THAT(output.error().message, HasSubstr("expected ';'"));
  Expected<CompileOutput> unknown =
      comgr->compile(job(k_simple_hip, SourceLanguage::hip, "gfx9999", false));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::invalid_argument);
}

TEST_F(BackendTest, ComgrWithoutALibraryIsNotFound)
{
  BackendOptions options;
  options.comgr_libraries = {"libd4r_no_such_comgr.so.9", (m_dir / "libamd_comgr.so.3").string()};
  Expected<std::unique_ptr<Backend>> comgr = make_comgr_backend(options);
  ASSERT_FALSE(comgr);
  EXPECT_EQ(comgr.error().code, ErrorCode::not_found);
  EXPECT_THAT(comgr.error().message, HasSubstr("libd4r_no_such_comgr.so.9"));
  // Without comgr every target goes to llvm.
  EXPECT_EQ(choose_backend("gfx1030", options)->name(), "llvm");
  EXPECT_EQ(choose_backend("gfx1201", options)->name(), "llvm");
}

TEST_F(BackendTest, ChooseBackendFallsBackToLlvm)
{
  BackendOptions options;
  EXPECT_EQ(choose_backend("gfx1101", options)->name(), "llvm");
  std::unique_ptr<Backend> comgr = system_comgr();
  if (comgr == nullptr) {
    GTEST_SKIP() << "no libamd_comgr on this machine";
  }
  std::string target = comgr_test_target(*comgr);
  EXPECT_EQ(choose_backend(target, options)->name(), "comgr");
}

} // namespace
} // namespace d4r::compiler
