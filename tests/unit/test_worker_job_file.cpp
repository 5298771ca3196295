#include "compiler/worker/job_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using d4r::compiler::SourceLanguage;
using d4r::compiler::WorkerJob;

WorkerJob sample_job()
{
  WorkerJob job;
  job.backend = "llvm";
  job.compile.source = "/src/kernel.hip";
  job.compile.language = SourceLanguage::llvm_bitcode;
  job.compile.target = "gfx1201";
  job.compile.flags = {"-O3", "-DNAME=a=b", "-mcumode"};
  job.compile.wave64 = true;
  job.compile.work_dir = "/scratch/work dir";
  job.output = "/scratch/out.hsaco";
  return job;
}

TEST(WorkerJobFile, RoundTripsEveryField)
{
  d4r::Expected<std::string> text = d4r::compiler::format_worker_job(sample_job());
  ASSERT_TRUE(text) << text.error().message;
  d4r::Expected<WorkerJob> parsed = d4r::compiler::parse_worker_job(*text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  WorkerJob expected = sample_job();
  EXPECT_EQ(parsed->backend, expected.backend);
  EXPECT_EQ(parsed->compile.source, expected.compile.source);
  EXPECT_EQ(parsed->compile.language, SourceLanguage::llvm_bitcode);
  EXPECT_EQ(parsed->compile.target, expected.compile.target);
  EXPECT_EQ(parsed->compile.flags, expected.compile.flags); // "=" inside a value survives
  EXPECT_TRUE(parsed->compile.wave64);
  EXPECT_EQ(parsed->compile.work_dir, expected.compile.work_dir);
  EXPECT_EQ(parsed->output, expected.output);
  EXPECT_TRUE(parsed->fault.empty());
}

TEST(WorkerJobFile, RoundTripsAPtxJob)
{
  WorkerJob job = sample_job();
  job.compile.language = SourceLanguage::ptx;
  job.compile.entry = "hiluma_engine_output_filter";
  job.compile.passes = {"sust", "roundf"};
  job.compile.pass_parameters["sust"]["kinds"] = "b16x4 b32";
  job.compile.pass_parameters["roundf"]["names"] = "a=b c";
  job.compile.mode = d4r::Mode::fast;
  d4r::Expected<std::string> text = d4r::compiler::format_worker_job(job);
  ASSERT_TRUE(text) << text.error().message;
  d4r::Expected<WorkerJob> parsed = d4r::compiler::parse_worker_job(*text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->compile.language, SourceLanguage::ptx);
  EXPECT_EQ(parsed->compile.entry, job.compile.entry);
  EXPECT_EQ(parsed->compile.passes, job.compile.passes); // order kept
  EXPECT_EQ(parsed->compile.pass_parameters, job.compile.pass_parameters);
  EXPECT_EQ(parsed->compile.mode, d4r::Mode::fast); // the default is accuracy
}

TEST(WorkerJobFile, ReadsTheDocumentedFormat)
{
  d4r::Expected<WorkerJob> job = d4r::compiler::parse_worker_job(
      "# comment\n\nbackend=clang\nsource=/a.ll\nlanguage=llvm_ir\ntarget=gfx1100\nwave64=0\n"
      "work_dir=/w\noutput=/o\nfault=crash\n");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->backend, "clang");
  EXPECT_EQ(job->compile.language, SourceLanguage::llvm_ir);
  EXPECT_FALSE(job->compile.wave64);
  EXPECT_TRUE(job->compile.flags.empty());
  EXPECT_EQ(job->fault, "crash");
}

TEST(WorkerJobFile, RejectsMalformedFiles)
{
  const std::string base = "backend=llvm\nsource=/a.hip\ntarget=gfx1101\nwork_dir=/w\noutput=/o\n";
  ASSERT_TRUE(d4r::compiler::parse_worker_job(base));
  struct Case {
    std::string text;
    std::string expected;
  };
  for (const Case& bad : {
           Case{base + "colour=blue\n", "line 6: unknown key 'colour'"},
           Case{base + "target=gfx1100\n", "line 6: key 'target' repeated"},
           Case{base + "no equals sign\n", "line 6: expected key=value"},
           Case{base + "language=cuda\n", "unknown language 'cuda'"},
           Case{base + "wave64=yes\n", "wave64 must be 0 or 1"},
           Case{base + "fault=explode\n", "unknown fault 'explode'"},
           Case{base + "pass_param=sust\n", "pass_param must be NAME.KEY=VALUE"},
           Case{base + "pass_param=.kinds=b32\n", "pass_param must be NAME.KEY=VALUE"},
           Case{base + "entry=a\nentry=b\n", "key 'entry' repeated"},
           Case{base + "mode=turbo\n", "turbo"},
           Case{base + "mode=fast\nmode=fast\n", "key 'mode' repeated"},
           Case{"backend=llvm\nsource=/a.hip\nwork_dir=/w\noutput=/o\n", "missing 'target'"},
       }) {
    d4r::Expected<WorkerJob> job = d4r::compiler::parse_worker_job(bad.text);
    ASSERT_FALSE(job) << bad.text;
    EXPECT_EQ(job.error().code, d4r::ErrorCode::invalid_argument);
    EXPECT_NE(job.error().message.find(bad.expected), std::string::npos) << job.error().message;
  }
}

TEST(WorkerJobFile, RefusesToWriteALineBreak)
{
  WorkerJob job = sample_job();
  job.compile.flags.push_back("-DX=1\noutput=/etc/passwd");
  d4r::Expected<std::string> text = d4r::compiler::format_worker_job(job);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, d4r::ErrorCode::invalid_argument);
  EXPECT_NE(text.error().message.find("line break"), std::string::npos);
}

TEST(WorkerJobFile, ReadNamesTheFile)
{
  std::filesystem::path missing =
      std::filesystem::path(::testing::TempDir()) / "d4r-worker-job-missing.txt";
  d4r::Expected<WorkerJob> job = d4r::compiler::read_worker_job(missing);
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error().code, d4r::ErrorCode::io);
  EXPECT_NE(job.error().message.find(missing.string()), std::string::npos);
}

} // namespace
