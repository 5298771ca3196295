// Hints whose exact meaning on AMD is "nothing": their operands are checked (so a malformed one is
// still an error) and no code is made.
// - applypriority.global.L2::evict_normal [a], 128: changes only the L2 eviction priority of a line.
// - discard.global.L2 [a], 128: leaves the line's contents undefined (PTX: "the cache line is
//   invalidated ... subsequent reads may return any value"), so keeping them is one of the values
//   it allows: a no-op is exact.
// - createpolicy (.fractional, .range, .cvt): makes the opaque 64-bit operand of .L2::cache_hint.
//   Any value will do, since every .L2::cache_hint is ignored (ld/st in lower_memory.cpp): 0.
// - griddepcontrol.wait / .launch_dependents (programmatic dependent launch): .wait waits until
//   the grids this one depends on have completed and their memory is visible; .launch_dependents
//   allows the dependent grid to start early, which it never has to. The hook launches through
//   HIP, whose launches on one stream run one after another (a kernel starts after the previous
//   one completed, its writes visible), so there is nothing left to wait for and nothing to allow.
// - pmevent a / pmevent.mask m: a performance-monitor event; nothing on AMD counts it.
// - setmaxnreg.{inc,dec}.sync.aligned.u32 n (sm_90a): moves registers between warpgroups; AMDGPU
//   allocates registers statically per kernel, so the request changes nothing a thread computes.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-applypriority
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-griddepcontrol
// https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-setmaxnreg

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <optional>
#include <span>
#include <vector>

namespace d4r::compiler::translate {

namespace {

PtxType u64_type()
{
  return PtxType{PtxType::Kind::unsigned_int, 64, false};
}

// The "size" operand of applypriority and discard: 128, the only size PTX allows.
Expected<void> line_size(FunctionTranslator& t, const ptx::Instruction& instruction,
                         const ptx::Operand& size)
{
  if (size.kind != ptx::OperandKind::integer || size.text != "128") {
    return std::unexpected(t.error(instruction, instruction.opcode + " takes a size of 128"));
  }
  return {};
}

// applypriority{.global}.L2::evict_normal [a], 128 and discard{.global}.L2 [a], 128.
Expected<void> lower_line_hint(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  bool discard = instruction.opcode == "discard";
  static constexpr std::string_view k_priority[] = {"global", "L2::evict_normal"};
  static constexpr std::string_view k_discard[] = {"global", "L2"};
  TRY(known_modifiers(t, instruction, discard ? std::span(k_discard) : std::span(k_priority)));
  if (!has_modifier(instruction, discard ? "L2" : "L2::evict_normal")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 2));
  Space space = has_modifier(instruction, "global") ? Space::global : Space::generic;
  TRY(t.address(instruction.operands[0], space));
  return line_size(t, instruction, instruction.operands[1]);
}

// createpolicy.fractional.L2::primary{.L2::secondary}.b64 d{, fraction};
// createpolicy.range{.global}.L2::primary{.L2::secondary}.b64 d, [a], primary_size, total_size;
// createpolicy.cvt.L2.b64 d, access_property.
Expected<void> lower_createpolicy(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "fractional",       "range",           "cvt",
      "global",           "L2",              "L2::evict_last",
      "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged",
      "b64"};
  TRY(known_modifiers(t, instruction, k_known));
  bool fractional = has_modifier(instruction, "fractional");
  bool range = has_modifier(instruction, "range");
  bool cvt = has_modifier(instruction, "cvt");
  if (int{fractional} + int{range} + int{cvt} != 1 || !has_modifier(instruction, "b64")) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  if (fractional) {
    if (ops.empty() || ops.size() > 2) {
      return std::unexpected(t.error(instruction, "createpolicy.fractional takes 1 or 2 operands"));
    }
    if (ops.size() == 2) {
      TRY(t.read(ops[1], f32_type()));
    }
  } else if (range) {
    TRY(expect_operands(t, instruction, 4));
    TRY(t.address(ops[1], has_modifier(instruction, "global") ? Space::global : Space::generic));
    TRY(t.read(ops[2], u32_type()));
    TRY(t.read(ops[3], u32_type()));
  } else {
    TRY(expect_operands(t, instruction, 2));
    TRY(t.read(ops[1], u64_type()));
  }
  return t.write(ops[0], t.builder().getInt64(0), u64_type());
}

Expected<void> lower_griddepcontrol(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"launch_dependents", "wait"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() != 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  return expect_operands(t, instruction, 0);
}

// pmevent a (an event number 0-15) / pmevent.mask m (a 16-bit mask of events).
Expected<void> lower_pmevent(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"mask"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 1));
  const ptx::Operand& event = instruction.operands[0];
  std::optional<uint64_t> value =
      event.kind == ptx::OperandKind::integer ? parse_integer(event.text) : std::nullopt;
  uint64_t limit = has_modifier(instruction, "mask") ? 0xffff : 15;
  if (!value || *value > limit) {
    return std::unexpected(t.error(instruction, "pmevent takes an immediate event (0-15) or mask"));
  }
  return {};
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n, n a multiple of 8 in 24..256.
Expected<void> lower_setmaxnreg(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"inc", "dec", "sync", "aligned", "u32"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() != 4 ||
      has_modifier(instruction, "inc") == has_modifier(instruction, "dec")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 1));
  const ptx::Operand& count = instruction.operands[0];
  std::optional<uint64_t> value =
      count.kind == ptx::OperandKind::integer ? parse_integer(count.text) : std::nullopt;
  if (!value || *value < 24 || *value > 256 || *value % 8 != 0) {
    return std::unexpected(
        t.error(instruction, "setmaxnreg takes an immediate multiple of 8 in 24..256"));
  }
  return {};
}

} // namespace

void add_hint_lowerings(LoweringTable& table)
{
  table["applypriority"] = lower_line_hint;
  table["discard"] = lower_line_hint;
  table["createpolicy"] = lower_createpolicy;
  table["griddepcontrol"] = lower_griddepcontrol;
  table["pmevent"] = lower_pmevent;
  table["setmaxnreg"] = lower_setmaxnreg;
}

} // namespace d4r::compiler::translate
