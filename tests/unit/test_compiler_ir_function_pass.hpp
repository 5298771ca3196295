#pragma once
// Running one of the translator's IR rewrites (nan_observation.hpp, exact_round_trip.hpp, ...) on
// a hand-written LLVM IR module in a test: parse, rewrite function @f, check that it still
// verifies, and keep what the rewrite returned and the function's text after it.

#include <gtest/gtest.h>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace d4r::compiler::translate::test {

struct FunctionPassRun {
  size_t count = 0; // what the rewrite returned: how many places it changed
  std::string ir;   // @f after it
};

inline FunctionPassRun run_function_pass(const std::string& text,
                                         const std::function<size_t(llvm::Function&)>& rewrite)
{
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(text, diagnostic, context);
  if (!module) {
    ADD_FAILURE() << "ir line " << diagnostic.getLineNo() << ": " << diagnostic.getMessage().str();
    return {};
  }
  llvm::Function* function = module->getFunction("f");
  if (function == nullptr) {
    ADD_FAILURE() << "no @f in the IR";
    return {};
  }
  FunctionPassRun run;
  run.count = rewrite(*function);
  EXPECT_FALSE(llvm::verifyFunction(*function, &llvm::errs()));
  llvm::raw_string_ostream os(run.ir);
  function->print(os);
  return run;
}

inline bool has(const std::string& ir, const std::string& text)
{
  return ir.find(text) != std::string::npos;
}

} // namespace d4r::compiler::translate::test
