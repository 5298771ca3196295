#include "cli/options.hpp"

#include "util/kernel_identity.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace d4r::cli {
namespace {

Environment test_env()
{
  Environment env;
  env.xdg_runtime_dir = "/run/user/1234";
  env.uid = 1234;
  return env;
}

Expected<ParsedCommand> parse(std::initializer_list<const char*> args,
                              const Environment& env = test_env())
{
  std::vector<std::string> strings(args.begin(), args.end());
  return parse_command_line(strings, env);
}

// Parses and expects a command of type T; fails the test otherwise.
template <typename T> T parse_as(std::initializer_list<const char*> args)
{
  Expected<ParsedCommand> parsed = parse(args);
  EXPECT_TRUE(parsed.has_value()) << (parsed ? "" : parsed.error().message);
  if (!parsed || !std::holds_alternative<T>(parsed->command)) {
    ADD_FAILURE() << "unexpected command type";
    return T{};
  }
  return std::get<T>(parsed->command);
}

// Expects a usage error whose message contains `needle`.
void expect_error(std::initializer_list<const char*> args, const std::string& needle)
{
  Expected<ParsedCommand> parsed = parse(args);
  ASSERT_FALSE(parsed.has_value()) << "parsed although it should not";
  EXPECT_EQ(parsed.error().code, ErrorCode::invalid_argument);
  EXPECT_NE(parsed.error().message.find(needle), std::string::npos) << parsed.error().message;
}

TEST(CliOptions, DefaultSocketFollowsXdgRuntimeDir)
{
  Expected<ParsedCommand> parsed = parse({"status"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->global.socket, "/run/user/1234/d4r-kerneld/socket");
  EXPECT_FALSE(parsed->global.json);
  EXPECT_EQ(parsed->global.timeout_ms, k_default_timeout_ms);
  EXPECT_FALSE(parsed->global.timeout_given);
  EXPECT_TRUE(std::holds_alternative<StatusCommand>(parsed->command));
}

TEST(CliOptions, DefaultSocketFallsBackToRunUserWithoutAbsoluteXdg)
{
  Environment env = test_env();
  env.xdg_runtime_dir = "";
  EXPECT_EQ(default_socket_path(env), "/run/user/1234/d4r-kerneld/socket");
  env.xdg_runtime_dir = "relative/dir";
  env.uid = 77;
  EXPECT_EQ(default_socket_path(env), "/run/user/77/d4r-kerneld/socket");
}

TEST(CliOptions, SocketOptionBeatsEnvironmentWhichBeatsDefault)
{
  Environment env = test_env();
  env.kerneld_socket = "/tmp/from-env.sock";
  Expected<ParsedCommand> from_env = parse({"status"}, env);
  ASSERT_TRUE(from_env);
  EXPECT_EQ(from_env->global.socket, "/tmp/from-env.sock");
  Expected<ParsedCommand> from_option = parse({"status", "--socket", "/tmp/opt.sock"}, env);
  ASSERT_TRUE(from_option);
  EXPECT_EQ(from_option->global.socket, "/tmp/opt.sock");
  Expected<ParsedCommand> inline_form = parse({"--socket=/tmp/eq.sock", "status"}, env);
  ASSERT_TRUE(inline_form);
  EXPECT_EQ(inline_form->global.socket, "/tmp/eq.sock");
}

TEST(CliOptions, JsonIsAcceptedAnywhere)
{
  for (auto args :
       {std::vector<std::string>{"--json", "list"}, std::vector<std::string>{"list", "--json"},
        std::vector<std::string>{"list", "--mode", "fast", "--json"},
        std::vector<std::string>{"resolve", "--json", "--module-hash", "8baeb925f177af87",
                                 "--kernel", "k"}}) {
    Expected<ParsedCommand> parsed = parse_command_line(args, test_env());
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_TRUE(parsed->global.json) << args.front() << " " << args.back();
  }
}

TEST(CliOptions, TimeoutIsCheckedAndMarkedAsGiven)
{
  Expected<ParsedCommand> parsed = parse({"--timeout-ms", "250", "status"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->global.timeout_ms, 250);
  EXPECT_TRUE(parsed->global.timeout_given);
  expect_error({"--timeout-ms", "0", "status"}, "--timeout-ms");
  expect_error({"--timeout-ms", "12x", "status"}, "not a whole number");
  expect_error({"--timeout-ms", "-5", "status"}, "--timeout-ms");
  expect_error({"status", "--timeout-ms"}, "needs a value");
}

TEST(CliOptions, ResolveTakesEveryOption)
{
  auto cmd = parse_as<ResolveCommand>({"resolve", "--module-hash", "8BAEB925F177AF87", "--kernel",
                                       "d4r_test_layer", "--mode", "accuracy", "--target",
                                       "gfx1201", "--no-fp8", "--no-swin-encoders", "--wait-ms",
                                       "1500", "--out=/tmp/x.hsaco"});
  EXPECT_EQ(cmd.module_hash, 0x8baeb925f177af87ULL);
  EXPECT_EQ(cmd.kernel, "d4r_test_layer");
  ASSERT_TRUE(cmd.mode.has_value());
  EXPECT_EQ(*cmd.mode, Mode::accuracy);
  EXPECT_EQ(cmd.target, "gfx1201");
  EXPECT_FALSE(cmd.fp8_native);
  EXPECT_FALSE(cmd.native_swin_encoders);
  EXPECT_EQ(cmd.wait_ms, 1500);
  EXPECT_EQ(cmd.out_path, "/tmp/x.hsaco");
}

TEST(CliOptions, BuildNeedsAKernelButNoModule)
{
  auto cmd = parse_as<ResolveCommand>(
      {"build", "--target", "gfx1201", "--mode", "accuracy", "--kernel", "d4r_example_layer"});
  EXPECT_TRUE(cmd.build);
  EXPECT_EQ(cmd.kernel, "d4r_example_layer");
  EXPECT_EQ(cmd.target, "gfx1201");
  ASSERT_TRUE(cmd.mode.has_value());
  EXPECT_EQ(*cmd.mode, Mode::accuracy);
  EXPECT_EQ(cmd.wait_ms, k_default_build_wait_ms) << "a build waits for its compile by default";
  EXPECT_FALSE(parse_as<ResolveCommand>({"resolve", "--module-hash", "8baeb925f177af87",
                                         "--kernel", "k"})
                   .build);
  expect_error({"build", "--target", "gfx1201"}, "--kernel is required");
  expect_error({"build", "--kernel", "k", "--module-hash", "8baeb925f177af87"}, "--module-hash");
  expect_error({"build", "--kernel", "../k"}, "--kernel");
}

TEST(CliOptions, ResolveDefaultsLeaveChoicesToTheDaemon)
{
  auto cmd = parse_as<ResolveCommand>(
      {"resolve", "--kernel", "rrlite_enc1_4x4", "--module-hash", "26332c9543501ce9"});
  EXPECT_EQ(cmd.module_hash, 0x26332c9543501ce9ULL);
  EXPECT_FALSE(cmd.mode.has_value());
  EXPECT_TRUE(cmd.target.empty());
  EXPECT_TRUE(cmd.fp8_native);
  EXPECT_TRUE(cmd.native_swin_encoders);
  EXPECT_EQ(cmd.wait_ms, 0);
  EXPECT_TRUE(cmd.out_path.empty());
}

TEST(CliOptions, ResolveRejectsBadHashes)
{
  expect_error({"resolve", "--kernel", "k", "--module-hash", "8baeb925f177af8"}, "16 hex digits");
  expect_error({"resolve", "--kernel", "k", "--module-hash", "8baeb925f177af870"}, "16 hex");
  expect_error({"resolve", "--kernel", "k", "--module-hash", "8baeb925f177afzz"}, "16 hex");
  expect_error({"resolve", "--kernel", "k", "--module-hash", "0x8baeb925f177af"}, "16 hex");
  expect_error({"resolve", "--kernel", "k", "--module-hash", ""}, "16 hex");
}

TEST(CliOptions, ResolveRejectsBadKernelNames)
{
  const char* hash = "8baeb925f177af87";
  expect_error({"resolve", "--module-hash", hash, "--kernel", "../etc"}, "--kernel");
  expect_error({"resolve", "--module-hash", hash, "--kernel", "a/b"}, "0x2f");
  expect_error({"resolve", "--module-hash", hash, "--kernel", "a b"}, "--kernel");
  expect_error({"resolve", "--module-hash", hash, "--kernel", ""}, "empty");
  std::string long_name(d4r::k_max_kernel_name + 1, 'k');
  expect_error({"resolve", "--module-hash", hash, "--kernel", long_name.c_str()}, "8193 bytes");
}

TEST(CliOptions, ResolveRejectsBadModeTargetAndWait)
{
  const char* hash = "8baeb925f177af87";
  expect_error({"resolve", "--module-hash", hash, "--kernel", "k", "--mode", "turbo"},
               "--mode: unknown accuracy mode 'turbo'");
  expect_error({"resolve", "--module-hash", hash, "--kernel", "k", "--target", "gfx906"},
               "--target: unknown gpu target 'gfx906'");
  expect_error({"resolve", "--module-hash", hash, "--kernel", "k", "--target", "gfx1201-fp8"},
               "--target");
  expect_error({"resolve", "--module-hash", hash, "--kernel", "k", "--wait-ms", "600001"},
               "--wait-ms");
  expect_error({"resolve", "--module-hash", hash, "--kernel", "k", "--out", ""}, "--out");
}

TEST(CliOptions, ResolveNeedsHashAndKernel)
{
  expect_error({"resolve", "--kernel", "k"}, "--module-hash is required");
  expect_error({"resolve", "--module-hash", "8baeb925f177af87"}, "--kernel is required");
  expect_error({"resolve", "--module-hash", "8baeb925f177af87", "--kernel", "k", "extra"},
               "unexpected argument 'extra'");
  expect_error({"resolve", "--module-hash", "8baeb925f177af87", "--kernel"}, "needs a value");
  expect_error({"resolve", "--no-fp8=1", "--module-hash", "8baeb925f177af87", "--kernel", "k"},
               "takes no value");
}

TEST(CliOptions, ImportMakesTheDirectoryAbsolute)
{
  auto cmd = parse_as<ImportCommand>({"import", "release/../kernels"});
  std::filesystem::path expected =
      (std::filesystem::current_path() / "release/../kernels").lexically_normal();
  EXPECT_EQ(cmd.directory, expected.string());
  EXPECT_TRUE(std::filesystem::path(cmd.directory).is_absolute());
  EXPECT_EQ(parse_as<ImportCommand>({"import", "/opt/d4r/kernels"}).directory, "/opt/d4r/kernels");
  EXPECT_EQ(parse_as<ImportCommand>({"import"}).directory, "");
  // `--` lets a directory start with a dash.
  EXPECT_EQ(parse_as<ImportCommand>({"import", "--", "-odd"}).directory,
            (std::filesystem::current_path() / "-odd").string());
  expect_error({"import", "a", "b"}, "unexpected argument 'b'");
  expect_error({"import", "--mode", "fast"}, "unknown option '--mode' for command 'import'");
}

TEST(CliOptions, ListAndPurgeTakeAMode)
{
  EXPECT_FALSE(parse_as<ListCommand>({"list"}).mode.has_value());
  std::optional<Mode> mode = parse_as<ListCommand>({"list", "--mode=accuracy"}).mode;
  ASSERT_TRUE(mode.has_value());
  EXPECT_EQ(*mode, Mode::accuracy);
  PurgeCommand purge = parse_as<PurgeCommand>({"purge", "--yes", "--mode", "fast"});
  EXPECT_TRUE(purge.yes);
  ASSERT_TRUE(purge.mode.has_value());
  EXPECT_EQ(*purge.mode, Mode::fast);
  EXPECT_FALSE(parse_as<PurgeCommand>({"purge"}).yes);
  expect_error({"list", "--yes"}, "unknown option '--yes' for command 'list'");
  expect_error({"purge", "--mode", "slow"}, "unknown accuracy mode 'slow'");
  expect_error({"status", "--mode", "fast"}, "unknown option '--mode' for command 'status'");
  expect_error({"status", "now"}, "unexpected argument 'now'");
}

TEST(CliOptions, HelpAndVersion)
{
  EXPECT_EQ(parse_as<HelpCommand>({"--help"}).topic, "");
  EXPECT_EQ(parse_as<HelpCommand>({"-h"}).topic, "");
  EXPECT_EQ(parse_as<HelpCommand>({"resolve", "--help"}).topic, "resolve");
  // Help wins over the missing required options of its command.
  EXPECT_EQ(parse_as<HelpCommand>({"resolve", "-h", "--kernel", "k"}).topic, "resolve");
  EXPECT_EQ(parse_as<HelpCommand>({"help", "purge"}).topic, "purge");
  EXPECT_EQ(parse_as<HelpCommand>({"help"}).topic, "");
  parse_as<VersionCommand>({"--version"});
  expect_error({"help", "frobnicate"}, "unknown command 'frobnicate'");
}

TEST(CliOptions, UnknownCommandsAndOptionsAreUsageErrors)
{
  expect_error({}, "no command given");
  expect_error({"--json"}, "no command given");
  expect_error({"frobnicate"}, "unknown command 'frobnicate'");
  expect_error({"--frob", "status"}, "unknown option '--frob'");
  expect_error({"--mode", "fast", "list"}, "unknown option '--mode'");
  expect_error({"--socket", "", "status"}, "--socket: the path is empty");
}

} // namespace
TEST(CliOptions, PtxTranslateTakesATargetAndAnOutput)
{
  PtxTranslateCommand cmd = parse_as<PtxTranslateCommand>(
      {"ptx", "translate", "m.ptx", "--target", "gfx1201", "--kernel", "k", "-o", "k.hsaco"});
  EXPECT_EQ(cmd.path, "m.ptx");
  EXPECT_EQ(cmd.target, "gfx1201");
  EXPECT_EQ(cmd.kernel, "k");
  EXPECT_EQ(cmd.out_path, "k.hsaco");
  EXPECT_FALSE(cmd.emit_llvm);
  PtxTranslateCommand ir =
      parse_as<PtxTranslateCommand>({"ptx", "translate", "m.ptx", "--target", "host", "--emit-llvm"});
  EXPECT_EQ(ir.target, "host");
  EXPECT_TRUE(ir.emit_llvm);
  EXPECT_TRUE(ir.out_path.empty());
  expect_error({"ptx", "translate", "m.ptx", "-o", "x"}, "--target T is required");
  expect_error({"ptx", "translate", "m.ptx", "--target", "gfx1201"}, "-o OUT is required");
  expect_error({"ptx", "translate", "m.ptx", "--target", "host", "-o", "x"}, "add --emit-llvm");
  expect_error({"ptx", "translate", "m.ptx", "--target", "gfx90a", "-o", "x"}, "gfx90a");
  expect_error({"ptx", "translate", "m.ptx", "--target", "gfx1201", "-o", "x", "--inputs", "d"},
               "unknown option '--inputs' for 'ptx translate'");
}

TEST(CliOptions, PtxRunNeedsAKernelAndInputs)
{
  PtxRunCommand cmd =
      parse_as<PtxRunCommand>({"ptx", "run", "m.ptx", "--kernel", "k", "--inputs", "cases/k.case"});
  EXPECT_EQ(cmd.path, "m.ptx");
  EXPECT_EQ(cmd.kernel, "k");
  EXPECT_EQ(cmd.inputs, "cases/k.case");
  EXPECT_TRUE(cmd.out_dir.empty());
  expect_error({"ptx", "run", "m.ptx", "--kernel", "k"}, "--inputs DIR are required");
  expect_error({"ptx", "run", "m.ptx", "--inputs", "d"}, "--kernel NAME");
  expect_error({"ptx", "run", "--kernel", "k", "--inputs", "d"}, "a FILE is required");
  expect_error({"ptx", "run", "m.ptx", "--kernel", "k", "--inputs", "d", "--target", "gfx1100"},
               "unknown option '--target' for 'ptx run'");
  // rewrite keeps refusing the options only the new subcommands take
  expect_error({"ptx", "rewrite", "m.ptx", "--recipe", "r", "--kernel", "k"},
               "unknown option '--kernel' for 'ptx rewrite'");
}

} // namespace d4r::cli
