// The host side of the differential test (random_check.hpp).

#include "tests/random/random_check.hpp"

#include "compiler/backends/subprocess.hpp"
#include "compiler/cpu/executor.hpp"
#include "compiler/ptx_build.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace d4r::ptxgen {

namespace {

namespace fs = std::filesystem;

uint64_t slot_value(const RunRecord& record, uint32_t slots, int thread, int slot)
{
  uint64_t value = 0;
  const size_t at = (static_cast<size_t>(thread) * slots + static_cast<size_t>(slot)) * 8;
  if (at + 8 <= record.output.size()) {
    std::memcpy(&value, record.output.data() + at, 8);
  }
  return value;
}

// Runs one module on the executor; records for `programs` (all failed with the message when the
// module does not translate or JIT).
std::vector<RunRecord> run_module(const std::vector<Program>& programs, bool* translated)
{
  std::vector<RunRecord> records(programs.size());
  for (size_t i = 0; i < programs.size(); ++i) {
    records[i].seed = programs[i].seed;
    records[i].slots = static_cast<uint32_t>(programs[i].slots.size());
    records[i].threads = static_cast<uint32_t>(programs[i].threads);
  }
  std::string log;
  compiler::PtxBuild build;
  Expected<compiler::translate::Translation> translation =
      compiler::translate_ptx(module_text(programs), build, compiler::translate::TargetKind::host, log);
  Expected<std::unique_ptr<compiler::cpu::Executor>> executor =
      translation ? compiler::cpu::Executor::create(std::move(*translation), compiler::cpu::ExecutorOptions{1, 256 * 1024})
                  : std::unexpected(translation.error());
  *translated = executor.has_value();
  for (size_t i = 0; i < programs.size(); ++i) {
    RunRecord& record = records[i];
    if (!executor) {
      record.status = RunStatus::load_failed;
      record.message = executor.error().message;
      continue;
    }
    std::vector<uint64_t> inputs = programs[i].inputs;
    record.output.assign(static_cast<size_t>(output_bytes(programs[i])), 0);
    const uint64_t pointers[2] = {reinterpret_cast<uint64_t>(inputs.data()),
                                  reinterpret_cast<uint64_t>(record.output.data())};
    compiler::cpu::LaunchShape shape;
    shape.block = {static_cast<uint32_t>(programs[i].threads), 1, 1};
    Expected<compiler::cpu::LaunchStats> stats = (*executor)->launch(
        programs[i].name, shape, std::span<const std::byte>(reinterpret_cast<const std::byte*>(pointers), sizeof pointers));
    if (!stats) {
      record.status = RunStatus::launch_failed;
      record.message = stats.error().message;
      record.output.clear();
      continue;
    }
    record.digest = fnv1a64(record.output);
  }
  return records;
}

std::string hex_value(uint64_t value)
{
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace

std::vector<Program> generate_range(uint64_t first, int64_t count, const Options& options)
{
  std::vector<Program> programs;
  programs.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    programs.push_back(generate(first + static_cast<uint64_t>(i), options));
  }
  return programs;
}

std::vector<RunRecord> run_on_executor(const std::vector<Program>& programs)
{
  bool translated = false;
  std::vector<RunRecord> records = run_module(programs, &translated);
  if (translated || programs.size() <= 1) {
    return records;
  }
  for (size_t i = 0; i < programs.size(); ++i) {
    records[i] = run_module({programs[i]}, &translated)[0];
  }
  return records;
}

Difference first_difference(const Program& program, const RunRecord& gpu, const RunRecord& cpu)
{
  const uint32_t slots = static_cast<uint32_t>(program.slots.size());
  for (int slot = 0; slot < static_cast<int>(slots); ++slot) {
    for (int thread = 0; thread < program.threads; ++thread) {
      const uint64_t g = slot_value(gpu, slots, thread, slot), c = slot_value(cpu, slots, thread, slot);
      if (g != c) {
        return Difference{slot, thread, g, c};
      }
    }
  }
  return {};
}

std::vector<Difference> local_differences(const Program& program, const RunRecord& gpu, const RunRecord& cpu)
{
  const uint32_t slots = static_cast<uint32_t>(program.slots.size());
  auto same = [&](int slot, int thread) {
    return slot_value(gpu, slots, thread, slot) == slot_value(cpu, slots, thread, slot);
  };
  auto same_everywhere = [&](int slot) {
    for (int thread = 0; thread < program.threads; ++thread) {
      if (!same(slot, thread)) {
        return false;
      }
    }
    return true;
  };
  std::vector<Difference> differences;
  bool all_same_so_far = true;
  for (int slot = 0; slot < static_cast<int>(slots); ++slot) {
    const Slot& info = program.slots[static_cast<size_t>(slot)];
    std::string text = info.text;
    if (!text.empty() && text[0] == '@') {
      text = text.substr(text.find(' ') + 1);
    }
    const bool cross = info.cross || text.starts_with("shfl") || text.starts_with("vote") || text.starts_with("bar.red") ||
                       text.starts_with("ld.shared") || text.starts_with("activemask");
    for (int thread = 0; thread < program.threads; ++thread) {
      if (same(slot, thread)) {
        continue;
      }
      bool inputs_agree = !info.in_loop || all_same_so_far;
      for (int source : info.sources) {
        inputs_agree = inputs_agree && (cross ? same_everywhere(source) : same(source, thread));
      }
      for (int source : info.control) {
        inputs_agree = inputs_agree && source >= 0 && same(source, thread);
      }
      if (inputs_agree) {
        differences.push_back(Difference{slot, thread, slot_value(gpu, slots, thread, slot), slot_value(cpu, slots, thread, slot)});
        break;
      }
    }
    all_same_so_far = all_same_so_far && same_everywhere(slot);
  }
  return differences;
}

bool differs_only_in_nan_payload(const Slot& slot, const Difference& difference)
{
  // Element width and exponent mask of each float slot type.
  int width = 0;
  uint64_t exponent = 0;
  switch (slot.type) {
  case SlotType::f16:
  case SlotType::f16x2: width = 16; exponent = 0x7c00; break;
  case SlotType::bf16: width = 16; exponent = 0x7f80; break;
  case SlotType::f32: width = 32; exponent = 0x7f800000; break;
  case SlotType::f64: width = 64; exponent = 0x7ff0000000000000; break;
  default: return false;
  }
  const int elements = slot.type == SlotType::f16x2 ? 2 : 1;
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const uint64_t sign = uint64_t{1} << (width - 1);
  auto is_nan = [&](uint64_t bits) {
    return (bits & exponent) == exponent && (bits & ~sign & ~exponent) != 0;
  };
  bool any = false;
  for (int i = 0; i < elements; ++i) {
    const uint64_t gpu = (difference.gpu >> (i * width)) & mask;
    const uint64_t cpu = (difference.cpu >> (i * width)) & mask;
    if (gpu != cpu) {
      if (!is_nan(gpu) || !is_nan(cpu)) {
        return false;
      }
      any = true;
    }
  }
  return any;
}

std::vector<int> failed_waits(const Program& program, const RunRecord& record)
{
  std::vector<int> failed;
  const uint32_t slots = static_cast<uint32_t>(program.slots.size());
  for (int slot = 0; slot < static_cast<int>(slots); ++slot) {
    if (!program.slots[static_cast<size_t>(slot)].text.ends_with("(phase 0 completed)")) {
      continue;
    }
    for (int thread = 0; thread < program.threads; ++thread) {
      if ((slot_value(record, slots, thread, slot) & 0xffffffff) != 1) {
        failed.push_back(slot);
        break;
      }
    }
  }
  return failed;
}

Difference first_digest_difference(const Program& program, const RunRecord& gpu, const RunRecord& cpu)
{
  const uint32_t slots = static_cast<uint32_t>(program.slots.size());
  const std::vector<uint32_t> mine = slot_digests(cpu.output, slots);
  for (uint32_t slot = 0; slot < slots && slot < gpu.slot_digests.size(); ++slot) {
    if (mine[slot] != gpu.slot_digests[slot]) {
      return Difference{static_cast<int>(slot), -1, gpu.slot_digests[slot], mine[slot]};
    }
  }
  return {};
}

std::string form_of(const Slot& slot)
{
  std::string text = slot.text;
  std::string guard;
  if (!text.empty() && text[0] == '@') {
    guard = text[1] == '!' ? "@!p " : "@p ";
    text = text.substr(text.find(' ') + 1);
  }
  std::string form = guard + text.substr(0, text.find(' '));
  // The operand kinds matter for some forms (an immediate, a negated predicate): keep them.
  const std::string operands = text.find(' ') == std::string::npos ? "" : text.substr(text.find(' ') + 1);
  if (operands.find('!') != std::string::npos) {
    form += " (!p operand)";
  }
  if (slot.text.find("|") != std::string::npos) {
    form += " (p|q)";
  }
  if (slot.text.ends_with("(q)") || slot.text.ends_with("(hi)") || slot.text.ends_with("(p)")) {
    form += " " + slot.text.substr(slot.text.rfind('('));
  }
  return form;
}

std::string describe(const Program& program, const Difference& difference, const RunRecord& values_of)
{
  const Slot& slot = program.slots[static_cast<size_t>(difference.slot)];
  const uint32_t slots = static_cast<uint32_t>(program.slots.size());
  std::string text = program.name + " slot " + std::to_string(difference.slot) + ": " + slot.text + "\n";
  const int thread = difference.thread < 0 ? 0 : difference.thread;
  text += "  thread " + std::to_string(thread) + (slot.in_loop ? " (in a loop: inputs are their final values)" : "") + "\n";
  for (int source : slot.sources) {
    const Slot& from = program.slots[static_cast<size_t>(source)];
    text += "  input slot " + std::to_string(source) + " (" + to_string(from.type) +
            "): " + describe_value(from.type, slot_value(values_of, slots, thread, source)) + "  <- " + from.text + "\n";
  }
  // A matrix operation sums fragments of every thread: each source slot's value in every
  // thread, so that the sum can be redone by hand (the values that are memory's, as wgmma's
  // descriptors address, are not slots and are not shown).
  const std::string body = slot.text.starts_with("@") ? slot.text.substr(slot.text.find(' ') + 1) : slot.text;
  if (body.starts_with("mma.") || body.starts_with("wgmma.mma_async")) {
    for (int source : slot.sources) {
      text += "  slot " + std::to_string(source) + " in threads 0.." + std::to_string(program.threads - 1) + ":";
      for (int other = 0; other < program.threads; ++other) {
        text += (other % 8 == 0 ? "\n   " : " ") + hex_value(slot_value(values_of, slots, other, source));
      }
      text += "\n";
    }
  }
  if (difference.thread < 0) {
    text += "  digest differs: gpu " + hex_value(difference.gpu) + ", executor " + hex_value(difference.cpu) +
            "; executor value " + describe_value(slot.type, slot_value(values_of, slots, thread, difference.slot)) + "\n";
  } else {
    text += "  gpu      " + describe_value(slot.type, difference.gpu) + "\n";
    text += "  executor " + describe_value(slot.type, difference.cpu) + "\n";
  }
  return text;
}

std::string reproducer(const Program& program, const Difference& difference, const RunRecord& values_of)
{
  const Slot& slot = program.slots[static_cast<size_t>(difference.slot)];
  std::string line = slot.text;
  std::string part; // which destination of a two-destination form: "(q)", "(hi)", "(p)"
  if (line.ends_with(")") && line.rfind(" (") != std::string::npos) {
    part = line.substr(line.rfind(" (") + 1);
    line = line.substr(0, line.rfind(" ("));
  }
  std::string body = line;
  if (body[0] == '@') {
    body = body.substr(body.find(' ') + 1);
  }
  if (slot.cross || body.starts_with("shfl") || body.starts_with("vote") || body.starts_with("bar") || body.starts_with("ld.") ||
      body.starts_with("activemask") || body.find(".cc") != std::string::npos || body.starts_with("addc") ||
      body.starts_with("subc") || body.starts_with("madc")) {
    return {}; // reads other threads, memory or the carry flag
  }
  std::string dest = body.substr(body.find(' ') + 1);
  dest = dest.substr(0, dest.find(dest[0] == '{' ? '}' : ','));
  if (dest[0] == '{') {
    dest = part == "(hi)" ? dest.substr(dest.find(',') + 2) : dest.substr(1, dest.find(',') - 1);
  } else if (dest.find('|') != std::string::npos) {
    dest = part == "(q)" || part == "(p)" ? dest.substr(dest.find('|') + 1) : dest.substr(0, dest.find('|'));
  }
  const uint32_t slots = static_cast<uint32_t>(program.slots.size());
  const int thread = difference.thread < 0 ? 0 : difference.thread;
  std::string text = ".version 8.5\n.target sm_90\n.address_size 64\n\n// " + program.name + " slot " +
                     std::to_string(difference.slot) + ", thread " + std::to_string(thread) +
                     " (tests/random); expected (H200): " + describe_value(slot.type, slot_value(values_of, slots, thread, difference.slot)) +
                     "\n.visible .entry repro(.param .u64 p_out)\n{\n";
  size_t at = 0;
  while ((at = program.entry.find("  .reg ", at)) != std::string::npos) {
    const size_t end = program.entry.find('\n', at);
    text += program.entry.substr(at, end - at + 1);
    at = end;
  }
  text += "  ld.param.u64 %oa, [p_out];\n  cvta.to.global.u64 %oa, %oa;\n";
  for (size_t i = 0; i < slot.sources.size(); ++i) {
    const Slot& from = program.slots[static_cast<size_t>(slot.sources[i])];
    const uint64_t value = slot_value(values_of, slots, thread, slot.sources[i]);
    if (from.type == SlotType::pred) {
      text += "  setp.ne.u32 " + slot.source_regs[i] + ", " + std::to_string(value != 0 ? 1 : 0) + ", 0;\n";
    } else {
      text += "  mov.b" + std::to_string(slot_bytes(from.type) * 8) + " " + slot.source_regs[i] + ", " + hex_value(value) + ";\n";
    }
  }
  text += "  " + line + "\n";
  if (slot.type == SlotType::pred) {
    text += "  selp.u32 %t, 1, 0, " + dest + ";\n  st.global.u32 [%oa], %t;\n";
  } else {
    text += "  st.global.b" + std::to_string(slot_bytes(slot.type) * 8) + " [%oa], " + dest + ";\n";
  }
  return text + "  ret;\n}\n";
}

int amdgpu_child(uint64_t first, int64_t count, const Options& options, const std::string& target)
{
  const std::vector<Program> programs = generate_range(first, count, options);
  compiler::PtxBuild build;
  build.target = target;
  std::string log;
  if (compiler::build_ptx_code_object(module_text(programs), build, log)) {
    return 0;
  }
  for (const Program& program : programs) {
    Expected<std::vector<std::byte>> object =
        compiler::build_ptx_code_object(module_text(std::span<const Program>(&program, 1)), build, log);
    if (!object) {
      std::string message = object.error().message;
      for (char& c : message) {
        c = c == '\n' ? ' ' : c;
      }
      std::printf("FAIL %llu %s\n", static_cast<unsigned long long>(program.seed), message.c_str());
    }
  }
  return 1;
}

std::vector<TranslateFailure> translate_for_targets(const std::string& self, uint64_t first, int64_t count,
                                                    const Options& options, const std::vector<std::string>& targets)
{
  std::vector<TranslateFailure> failures;
  const fs::path log = fs::temp_directory_path() / ("d4r-ptxgen-" + std::to_string(getpid()) + ".log");
  for (const std::string& target : targets) {
    // A crash in a range is split until it names single programs.
    std::vector<std::pair<uint64_t, int64_t>> ranges{{first, count}};
    while (!ranges.empty()) {
      const auto [start, length] = ranges.back();
      ranges.pop_back();
      Expected<compiler::ProcessResult> result = compiler::run_process(
          {self, "--amdgpu-child", target, "--first", std::to_string(start), "--count", std::to_string(length),
           "--min-ops", std::to_string(options.min_ops), "--max-ops", std::to_string(options.max_ops), "--version",
           std::to_string(options.version)},
          log);
      if (!result) {
        failures.push_back({start, target, "cannot run the child: " + result.error().message});
        continue;
      }
      if (result->signal != 0 && length > 1) {
        ranges.push_back({start, length / 2});
        ranges.push_back({start + static_cast<uint64_t>(length / 2), length - length / 2});
        continue;
      }
      if (result->signal != 0) {
        failures.push_back({start, target, "crashed: signal " + std::to_string(result->signal)});
        continue;
      }
      size_t at = 0;
      while ((at = result->output.find("FAIL ", at)) != std::string::npos) {
        const size_t end = result->output.find('\n', at);
        const std::string line = result->output.substr(at + 5, end - at - 5);
        failures.push_back({std::strtoull(line.c_str(), nullptr, 10), target, line.substr(line.find(' ') + 1)});
        at = end;
      }
      if (result->exit_code != 0 && result->output.find("FAIL ") == std::string::npos) {
        failures.push_back({start, target, "exit " + std::to_string(result->exit_code) + ": " + result->output});
      }
    }
  }
  std::error_code ignored;
  fs::remove(log, ignored);
  return failures;
}

} // namespace d4r::ptxgen
