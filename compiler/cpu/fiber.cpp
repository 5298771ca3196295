#include "compiler/cpu/fiber.hpp"
// x86-64: a hand-rolled switch (boost.context's approach, reduced). ucontext's swapcontext makes a
// sigprocmask system call on every switch: on the development machine it measured 1.5-2.8 us a
// switch against about 25 ns for this one (bench/cpu_executor.cpp), and the SIMT runtime switches
// at every barrier and warp collective.

#include <cassert>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
// d4r_fiber_switch(void** save_sp, void* new_sp): pushes the callee-saved registers and the
// floating-point control state, saves rsp, loads the other rsp and pops the same layout.
// d4r_fiber_start: the first "return" of a new fiber lands here with r12 = argument and
// r13 = entry; rsp is 16-byte aligned, as a call needs.
__asm__(R"(
  .text
  .p2align 4
  .globl d4r_fiber_switch
  .hidden d4r_fiber_switch
  .type d4r_fiber_switch,@function
d4r_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size d4r_fiber_switch,.-d4r_fiber_switch

  .p2align 4
  .globl d4r_fiber_start
  .hidden d4r_fiber_start
  .type d4r_fiber_start,@function
d4r_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size d4r_fiber_start,.-d4r_fiber_start
)");

extern "C" void d4r_fiber_switch(void** save_sp, void* new_sp);
extern "C" void d4r_fiber_start();
#endif

namespace d4r::compiler::cpu {

#if defined(__x86_64__)

void fiber_switch(FiberContext& from, FiberContext& to)
{
  d4r_fiber_switch(&from.sp, to.sp);
}

void fiber_make(FiberContext& context, void* stack_base, int64_t stack_bytes, FiberEntry entry,
                void* argument)
{
  auto top = reinterpret_cast<uintptr_t>(stack_base) + static_cast<uintptr_t>(stack_bytes);
  top &= ~static_cast<uintptr_t>(15);
  // Layout popped by d4r_fiber_switch, lowest address first: mxcsr | x87 cw, r15, r14, r13, r12,
  // rbx, rbp, return address.
  auto* slots = reinterpret_cast<uint64_t*>(top) - 8;
  uint32_t mxcsr = 0;
  uint16_t fpu_cw = 0;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fpu_cw));
  slots[0] = static_cast<uint64_t>(mxcsr) | (static_cast<uint64_t>(fpu_cw) << 32);
  slots[1] = 0;                                          // r15
  slots[2] = 0;                                          // r14
  slots[3] = reinterpret_cast<uint64_t>(entry);          // r13
  slots[4] = reinterpret_cast<uint64_t>(argument);       // r12
  slots[5] = 0;                                          // rbx
  slots[6] = 0;                                          // rbp
  slots[7] = reinterpret_cast<uint64_t>(&d4r_fiber_start); // return address
  context.sp = slots;
}

#else

void fiber_switch(FiberContext& from, FiberContext& to)
{
  swapcontext(&from.context, &to.context);
}

namespace {
void ucontext_entry(unsigned int entry_high, unsigned int entry_low, unsigned int arg_high,
                    unsigned int arg_low)
{
  auto entry = reinterpret_cast<FiberEntry>((static_cast<uintptr_t>(entry_high) << 32) | entry_low);
  void* argument = reinterpret_cast<void*>((static_cast<uintptr_t>(arg_high) << 32) | arg_low);
  entry(argument);
  __builtin_trap();
}
} // namespace

void fiber_make(FiberContext& context, void* stack_base, int64_t stack_bytes, FiberEntry entry,
                void* argument)
{
  getcontext(&context.context);
  context.context.uc_stack.ss_sp = stack_base;
  context.context.uc_stack.ss_size = static_cast<size_t>(stack_bytes);
  context.context.uc_link = nullptr;
  auto e = reinterpret_cast<uintptr_t>(entry);
  auto a = reinterpret_cast<uintptr_t>(argument);
  makecontext(&context.context, reinterpret_cast<void (*)()>(&ucontext_entry), 4,
              static_cast<unsigned int>(e >> 32), static_cast<unsigned int>(e),
              static_cast<unsigned int>(a >> 32), static_cast<unsigned int>(a));
}

#endif

FiberStack::~FiberStack()
{
  if (m_mapping != nullptr) {
    munmap(m_mapping, static_cast<size_t>(m_mapping_bytes));
  }
}

bool FiberStack::map(int64_t bytes)
{
  assert(m_mapping == nullptr && "a stack is mapped once");
  const int64_t page = sysconf(_SC_PAGESIZE);
  const int64_t rounded = (bytes + page - 1) / page * page;
  const int64_t total = rounded + page;
  void* mapping = mmap(nullptr, static_cast<size_t>(total), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) {
    return false;
  }
  if (mprotect(mapping, static_cast<size_t>(page), PROT_NONE) != 0) {
    munmap(mapping, static_cast<size_t>(total));
    return false;
  }
  m_mapping = mapping;
  m_mapping_bytes = total;
  m_base = static_cast<uint8_t*>(mapping) + page;
  m_bytes = rounded;
  return true;
}

bool StackPool::reserve(int64_t count)
{
  while (static_cast<int64_t>(m_stacks.size()) < count) {
    auto stack = std::make_unique<FiberStack>();
    if (!stack->map(m_stack_bytes)) {
      return false;
    }
    m_stacks.push_back(std::move(stack));
  }
  return true;
}

} // namespace d4r::compiler::cpu
