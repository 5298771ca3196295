// d4r-ptxgen-check: the host side of the differential test (tests/random/README.md).
//
//   d4r-ptxgen-check --first N --count N [--gpu RESULTS]... [--targets gfx1100,gfx1201]
//                    [--module N] [--show N] [--write-digests FILE] [--min-ops N --max-ops N] [--version N]
//                    [--executor 0] [--reduce SLOT] [--write-executor FILE] [--cpu FILE]
//
// Runs the programs of the seed range on the CPU executor (in modules of --module programs),
// compares them with the GPU's results slot by slot and prints, for each differing program, the
// first differing slot decoded; then a summary grouped by instruction form, each form with its
// first example. --targets builds every program's code object for those targets in a child
// process (crashes and failures are counted); --executor 0 skips the executor. --write-digests writes the GPU results of the range
// as a digest file (the checked-in CI batch). The generator version is the GPU results' (else
// --version, default 1). Exit status 1 when anything differs or fails.

#include "tests/random/random_check.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace d4r::ptxgen;

struct Arguments {
  uint64_t first = 1;
  int64_t count = 100;
  int64_t module = 200;
  int64_t show = 20;
  std::vector<std::string> gpu;
  std::vector<std::string> targets;
  std::string write_digests;
  std::string write_executor; // the executor's results as a results file
  std::string cpu;            // the executor's results read from a file (--write-executor's) instead of a run
  int reduce_slot = -1;
  std::string child_target;
  bool executor = true;
  Options options;
};

bool parse(int argc, char** argv, Arguments& args)
{
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], value = argv[i + 1];
    if (arg == "--first") {
      args.first = std::strtoull(value.c_str(), nullptr, 0);
    } else if (arg == "--count") {
      args.count = std::strtoll(value.c_str(), nullptr, 0);
    } else if (arg == "--module") {
      args.module = std::max<int64_t>(1, std::strtoll(value.c_str(), nullptr, 0));
    } else if (arg == "--show") {
      args.show = std::strtoll(value.c_str(), nullptr, 0);
    } else if (arg == "--gpu") {
      args.gpu.push_back(value);
    } else if (arg == "--targets") {
      std::stringstream list(value);
      std::string target;
      while (std::getline(list, target, ',')) {
        args.targets.push_back(target);
      }
    } else if (arg == "--write-digests") {
      args.write_digests = value;
    } else if (arg == "--write-executor") {
      args.write_executor = value;
    } else if (arg == "--cpu") {
      args.cpu = value;
    } else if (arg == "--amdgpu-child") {
      args.child_target = value;
    } else if (arg == "--min-ops") {
      args.options.min_ops = std::atoi(value.c_str());
    } else if (arg == "--max-ops") {
      args.options.max_ops = std::atoi(value.c_str());
    } else if (arg == "--reduce") {
      args.reduce_slot = std::atoi(value.c_str());
    } else if (arg == "--executor") {
      args.executor = value != "0";
    } else if (arg == "--version") {
      args.options.version = std::atoi(value.c_str());
    } else {
      return false;
    }
  }
  return (argc % 2) == 1;
}

struct Summary {
  int64_t programs = 0, compared = 0, same = 0, differ = 0, executor_failed = 0, gpu_failed = 0;
  int64_t nan_payloads = 0; // programs whose every local difference is a NaN's payload
  std::map<std::string, std::pair<int64_t, std::string>> forms; // form -> count, first example
  std::map<std::string, std::pair<int64_t, std::string>> local; // the same for local differences
};

void compare_chunk(const std::vector<Program>& programs, const std::vector<RunRecord>& cpu,
                   const std::map<uint64_t, RunRecord>& gpu, const Arguments& args, Summary& summary)
{
  for (size_t i = 0; i < programs.size(); ++i) {
    const Program& program = programs[i];
    if (cpu[i].status != RunStatus::ok) {
      ++summary.executor_failed;
      std::printf("%s: EXECUTOR FAILED: %s\n", program.name.c_str(), cpu[i].message.c_str());
      continue;
    }
    for (const int slot : failed_waits(program, cpu[i])) {
      ++summary.executor_failed;
      std::printf("%s: EXECUTOR WAIT FAILED: slot %d: %s\n", program.name.c_str(), slot,
                  program.slots[static_cast<size_t>(slot)].text.c_str());
    }
    const auto found = gpu.find(program.seed);
    if (found == gpu.end()) {
      continue;
    }
    if (found->second.status != RunStatus::ok || found->second.slots != program.slots.size() ||
        (found->second.slot_digests.empty() && static_cast<int>(found->second.threads) != program.threads)) {
      ++summary.gpu_failed;
      std::printf("%s: GPU record unusable (status %u, %u slots, generator has %zu)\n", program.name.c_str(),
                  static_cast<unsigned>(found->second.status), found->second.slots, program.slots.size());
      continue;
    }
    ++summary.compared;
    if (found->second.digest == cpu[i].digest) {
      ++summary.same;
      continue;
    }
    ++summary.differ;
    const Difference difference = first_difference(program, found->second, cpu[i]);
    if (args.reduce_slot >= 0) {
      for (const Difference& local : local_differences(program, found->second, cpu[i])) {
        if (local.slot == args.reduce_slot) {
          std::printf("%s", reproducer(program, local, found->second).c_str());
        }
      }
    }
    const std::string text = describe(program, difference, found->second);
    const std::string form = form_of(program.slots[static_cast<size_t>(difference.slot)]);
    auto& entry = summary.forms[form];
    if (entry.first++ == 0) {
      entry.second = text;
    }
    if (summary.differ <= args.show) {
      std::printf("DIFF %s", text.c_str());
    }
    const std::vector<Difference> locals = local_differences(program, found->second, cpu[i]);
    const bool nan_payloads_only = !locals.empty() && std::ranges::all_of(locals, [&](const Difference& local) {
      return differs_only_in_nan_payload(program.slots[static_cast<size_t>(local.slot)], local);
    });
    summary.nan_payloads += nan_payloads_only ? 1 : 0;
    for (const Difference& local : locals) {
      const std::string local_form = form_of(program.slots[static_cast<size_t>(local.slot)]);
      auto& local_entry = summary.local[local_form];
      if (local_entry.first++ == 0) {
        local_entry.second = describe(program, local, found->second);
      }
      std::printf("LOCAL %s %d %s%s\n", program.name.c_str(), local.slot, local_form.c_str(),
                  nan_payloads_only ? " (NaN payload)" : "");
    }
  }
}

} // namespace

int main(int argc, char** argv)
{
  Arguments args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr, "usage: d4r-ptxgen-check --first N --count N [--gpu RESULTS]... [--targets T1,T2] [--module N] "
                         "[--show N] [--write-digests FILE] [--min-ops N --max-ops N]\n");
    return 2;
  }
  if (!args.child_target.empty()) {
    return amdgpu_child(args.first, args.count, args.options, args.child_target);
  }
  std::map<uint64_t, RunRecord> gpu;
  for (const std::string& path : args.gpu) {
    int version = 0;
    std::string error;
    std::vector<RunRecord> records = read_results(path, &version, &error);
    if (!error.empty() || version < 1 || version > k_latest_version) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(),
                   error.empty() ? ("unknown generator version " + std::to_string(version)).c_str() : error.c_str());
      return 1;
    }
    args.options.version = version; // the programs are the ones the GPU ran
    for (RunRecord& record : records) {
      gpu[record.seed] = std::move(record);
    }
  }
  std::map<uint64_t, RunRecord> stored;
  if (!args.cpu.empty()) {
    int version = 0;
    std::string error;
    for (RunRecord& record : read_results(args.cpu, &version, &error)) {
      stored[record.seed] = std::move(record);
    }
    if (!error.empty() || version != args.options.version) {
      std::fprintf(stderr, "%s: %s\n", args.cpu.c_str(), error.empty() ? "another generator version" : error.c_str());
      return 1;
    }
  }
  Summary summary;
  std::vector<RunRecord> digests;
  std::vector<RunRecord> executor_records;
  int64_t translate_failures = 0;
  for (int64_t done = 0; done < args.count; done += args.module) {
    const uint64_t start = args.first + static_cast<uint64_t>(done);
    const int64_t length = std::min(args.module, args.count - done);
    const std::vector<Program> programs = generate_range(start, length, args.options);
    summary.programs += static_cast<int64_t>(programs.size()); // built for the targets even when not run
    if (args.executor) {
      std::vector<RunRecord> cpu;
      if (stored.empty()) {
        cpu = run_on_executor(programs);
      } else {
        for (const Program& program : programs) {
          RunRecord record = stored.count(program.seed) != 0 ? stored[program.seed] : RunRecord{};
          if (stored.count(program.seed) == 0) {
            record.seed = program.seed;
            record.status = RunStatus::launch_failed;
            record.message = "not in " + args.cpu;
          }
          cpu.push_back(std::move(record));
        }
      }
      compare_chunk(programs, cpu, gpu, args, summary);
      if (!args.write_executor.empty()) {
        executor_records.insert(executor_records.end(), std::make_move_iterator(cpu.begin()), std::make_move_iterator(cpu.end()));
      }
    }
    for (const Program& program : programs) {
      if (gpu.count(program.seed) != 0) {
        digests.push_back(gpu[program.seed]);
      }
    }
    if (!args.targets.empty()) {
      for (const TranslateFailure& failure : translate_for_targets(argv[0], start, length, args.options, args.targets)) {
        ++translate_failures;
        std::printf("TRANSLATE %s r%llu: %s\n", failure.target.c_str(), static_cast<unsigned long long>(failure.seed),
                    failure.message.c_str());
      }
    }
    std::fflush(stdout);
  }
  std::printf("\nprograms %lld, compared with the GPU %lld: same %lld, differ %lld (%.2f%%; only in NaN payloads %lld); "
              "executor failed %lld, GPU record unusable %lld; AMDGPU (%zu targets) failures %lld\n",
              static_cast<long long>(summary.programs), static_cast<long long>(summary.compared),
              static_cast<long long>(summary.same), static_cast<long long>(summary.differ),
              summary.compared > 0 ? 100.0 * static_cast<double>(summary.differ) / static_cast<double>(summary.compared) : 0.0,
              static_cast<long long>(summary.nan_payloads),
              static_cast<long long>(summary.executor_failed), static_cast<long long>(summary.gpu_failed),
              args.targets.size(), static_cast<long long>(translate_failures));
  for (const auto& [form, entry] : summary.forms) {
    std::printf("\nFORM %s: %lld programs; first:\n%s", form.c_str(), static_cast<long long>(entry.first),
                entry.second.c_str());
  }
  for (const auto& [form, entry] : summary.local) {
    std::printf("\nLOCAL FORM %s: %lld slots; first:\n%s", form.c_str(), static_cast<long long>(entry.first),
                entry.second.c_str());
  }
  if (!args.write_executor.empty() && !write_results(args.write_executor, args.options.version, executor_records)) {
    std::fprintf(stderr, "cannot write %s\n", args.write_executor.c_str());
    return 1;
  }
  if (!args.write_digests.empty() && !write_results(args.write_digests, args.options.version, digests, true)) {
    std::fprintf(stderr, "cannot write %s\n", args.write_digests.c_str());
    return 1;
  }
  return summary.differ + summary.executor_failed + summary.gpu_failed + translate_failures > 0 ? 1 : 0;
}
