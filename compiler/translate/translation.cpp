#include "compiler/translate/translator.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace d4r::compiler::translate {

// Out of line: the header only forward-declares the LLVM types the unique_ptrs own.
Translation::Translation() = default;
Translation::Translation(Translation&&) noexcept = default;
Translation& Translation::operator=(Translation&& other) noexcept
{
  // Member-wise assignment would free the old context while the old module still refers to it.
  if (this != &other) {
    module.reset();
    context = std::move(other.context);
    module = std::move(other.module);
    kernels = std::move(other.kernels);
  }
  return *this;
}
Translation::~Translation()
{
  // The module refers to the context: it goes first.
  module.reset();
}

} // namespace d4r::compiler::translate
