#pragma once
// Fibers for the SIMT runtime: one per PTX thread, switched by hand on x86-64 (six callee-saved
// registers, the stack pointer, MXCSR and the x87 control word: what the SysV ABI asks a call to
// preserve) and by ucontext elsewhere. A switch is a function call that returns when someone
// switches back, so a fiber only ever stops inside a runtime call.
//
// Stacks come from mmap with a PROT_NONE guard page below them, so an overflow is a SIGSEGV and
// never silent corruption; a StackPool keeps them for the next block run by the same OS thread.

#include <cstdint>
#include <memory>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace d4r::compiler::cpu {

// A saved execution context. On x86-64 it is the stack pointer where the context's registers
// were pushed.
struct FiberContext {
#if defined(__x86_64__)
  void* sp = nullptr;
#else
  ucontext_t context;
#endif
};

// Saves the running context into `from` and resumes `to`.
void fiber_switch(FiberContext& from, FiberContext& to);

// Makes `context` start `entry(argument)` on the stack [stack_base, stack_base + stack_bytes)
// when first switched to. `entry` must never return: it ends by switching away for good.
using FiberEntry = void (*)(void* argument);
void fiber_make(FiberContext& context, void* stack_base, int64_t stack_bytes, FiberEntry entry,
                void* argument);

// One mmap'd stack with a guard page below it.
class FiberStack {
public:
  FiberStack() = default;
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;
  ~FiberStack();
  // Maps `bytes` (rounded up to pages) plus the guard page; false when mmap fails.
  [[nodiscard]] bool map(int64_t bytes);
  void* base() const { return m_base; }
  int64_t bytes() const { return m_bytes; }

private:
  void* m_mapping = nullptr;
  int64_t m_mapping_bytes = 0;
  void* m_base = nullptr;
  int64_t m_bytes = 0;
};

// The stacks of one OS thread, grown on demand and reused block after block.
class StackPool {
public:
  explicit StackPool(int64_t stack_bytes) : m_stack_bytes(stack_bytes) {}
  // Ensures at least `count` stacks; false when the system refuses memory.
  [[nodiscard]] bool reserve(int64_t count);
  FiberStack& stack(int64_t index) { return *m_stacks[static_cast<size_t>(index)]; }

private:
  int64_t m_stack_bytes;
  std::vector<std::unique_ptr<FiberStack>> m_stacks;
};

} // namespace d4r::compiler::cpu
