#include "compiler/translate/translator.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace d4r::compiler::translate {

// Out of line: the header only forward-declares the LLVM types the unique_ptrs own.
Translation::Translation() = default;
Translation::Translation(Translation&&) noexcept = default;
Translation& Translation::operator=(Translation&&) noexcept = default;
Translation::~Translation()
{
  // The module refers to the context: it goes first.
  module.reset();
}

} // namespace d4r::compiler::translate
