#include "compiler/translate/wmma_accumulator.hpp"

#include "compiler/translate/mma_fragments.hpp"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Support/AMDGPUAddrSpace.h>
#include <llvm/Transforms/Utils/Local.h>

#include <array>
#include <map>
#include <optional>
#include <string>

namespace d4r::compiler::translate {
namespace {

constexpr std::string_view k_to_wmma = "d4r.wmma.to_wmma.";
constexpr std::string_view k_to_ptx = "d4r.wmma.to_ptx.";
constexpr unsigned k_c_words = 4;
constexpr unsigned k_accumulator_elements = 8;

llvm::Type* accumulator_type(llvm::LLVMContext& context)
{
  return llvm::FixedVectorType::get(llvm::Type::getFloatTy(context), k_accumulator_elements);
}

std::string family_name(MmaLayout family)
{
  return family == MmaLayout::gfx11 ? "gfx11" : "gfx12";
}

llvm::CallInst* call_mark(llvm::IRBuilder<>& b, const std::string& name, llvm::Type* result,
                          llvm::ArrayRef<llvm::Value*> operands)
{
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Function* mark = module.getFunction(name);
  if (mark == nullptr) {
    llvm::SmallVector<llvm::Type*, 8> types;
    for (llvm::Value* operand : operands) {
      types.push_back(operand->getType());
    }
    mark = llvm::Function::Create(llvm::FunctionType::get(result, types, false),
                                  llvm::GlobalValue::ExternalLinkage, name, module);
    mark->setDoesNotAccessMemory();
    mark->setDoesNotThrow();
    mark->setWillReturn();
    mark->setNoSync();
  }
  return b.CreateCall(mark, operands);
}

struct Mark {
  llvm::CallInst* call = nullptr;
  MmaLayout family = MmaLayout::gfx11;
  bool to_wmma = false;
};

std::optional<Mark> as_mark(llvm::Value* value)
{
  auto* call = llvm::dyn_cast<llvm::CallInst>(value);
  llvm::Function* callee = call != nullptr ? call->getCalledFunction() : nullptr;
  if (callee == nullptr) {
    return std::nullopt;
  }
  llvm::StringRef name = callee->getName();
  bool to_wmma = name.starts_with(k_to_wmma);
  if (!to_wmma && !name.starts_with(k_to_ptx)) {
    return std::nullopt;
  }
  return Mark{call, name.ends_with("gfx11") ? MmaLayout::gfx11 : MmaLayout::gfx12, to_wmma};
}

std::vector<Mark> marks_of(llvm::Function& function)
{
  std::vector<Mark> marks;
  for (llvm::Instruction& instruction : llvm::instructions(function)) {
    if (std::optional<Mark> mark = as_mark(&instruction)) {
      marks.push_back(*mark);
    }
  }
  return marks;
}

// A PTX register's word as it was before bit casts between i32 and float.
llvm::Value* unwrapped(llvm::Value* value)
{
  while (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(value)) {
    value = cast->getOperand(0);
  }
  return value;
}

std::optional<uint32_t> constant_bits(llvm::Value* value)
{
  if (auto* integer = llvm::dyn_cast<llvm::ConstantInt>(value); integer != nullptr && integer->getBitWidth() == 32) {
    return static_cast<uint32_t>(integer->getZExtValue());
  }
  if (auto* real = llvm::dyn_cast<llvm::ConstantFP>(value); real != nullptr && real->getType()->isFloatTy()) {
    return static_cast<uint32_t>(real->getValueAPF().bitcastToAPInt().getZExtValue());
  }
  return std::nullopt;
}

std::optional<llvm::Constant*> splat_of(llvm::Value* value, llvm::LLVMContext& context)
{
  std::optional<uint32_t> bits = constant_bits(value);
  if (!bits) {
    return std::nullopt;
  }
  llvm::Constant* element =
      llvm::ConstantFP::get(context, llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, *bits)));
  return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(k_accumulator_elements), element);
}

// The WMMA accumulator that four PTX C words equal, building phis for a loop's as it goes.
class AccumulatorFinder {
public:
  AccumulatorFinder(MmaLayout family, llvm::LLVMContext& context) : m_family(family), m_context(context) {}

  // nullptr where no such accumulator can be shown; the phis made on the way are then removed.
  llvm::Value* find(const std::array<llvm::Value*, k_c_words>& words)
  {
    llvm::Value* found = find_words(words);
    if (found == nullptr) {
      for (llvm::PHINode* phi : m_made) {
        phi->replaceAllUsesWith(llvm::PoisonValue::get(phi->getType()));
        phi->eraseFromParent();
      }
    }
    return found;
  }

private:
  llvm::Value* find_words(const std::array<llvm::Value*, k_c_words>& raw)
  {
    std::array<llvm::Value*, k_c_words> words{};
    for (unsigned w = 0; w < k_c_words; ++w) {
      words[w] = unwrapped(raw[w]);
    }
    if (llvm::Value* chained = earlier_result(words)) {
      return chained;
    }
    if (std::optional<llvm::Constant*> splat = splat_of(words[0], m_context)) {
      for (llvm::Value* word : words) {
        if (splat_of(word, m_context) != splat) {
          return nullptr;
        }
      }
      return *splat;
    }
    return through_phis(words);
  }

  // The accumulator of an earlier mark whose PTX words 0..3 these are, in order.
  llvm::Value* earlier_result(const std::array<llvm::Value*, k_c_words>& words)
  {
    llvm::Value* accumulator = nullptr;
    for (unsigned w = 0; w < k_c_words; ++w) {
      std::optional<Mark> mark = as_mark(words[w]);
      if (!mark || mark->to_wmma || mark->family != m_family) {
        return nullptr;
      }
      auto* word = llvm::dyn_cast<llvm::ConstantInt>(mark->call->getArgOperand(1));
      llvm::Value* source = mark->call->getArgOperand(0);
      if (word == nullptr || word->getZExtValue() != w || (accumulator != nullptr && source != accumulator)) {
        return nullptr;
      }
      accumulator = source;
    }
    return accumulator;
  }

  // Four phis of one block: a phi of the accumulators each predecessor's words equal.
  llvm::Value* through_phis(const std::array<llvm::Value*, k_c_words>& words)
  {
    std::array<llvm::PHINode*, k_c_words> phis{};
    for (unsigned w = 0; w < k_c_words; ++w) {
      phis[w] = llvm::dyn_cast<llvm::PHINode>(words[w]);
      if (phis[w] == nullptr || phis[w]->getParent() != phis[0]->getParent() ||
          phis[w]->getNumIncomingValues() != phis[0]->getNumIncomingValues()) {
        return nullptr;
      }
    }
    if (auto it = m_phis.find(phis); it != m_phis.end()) {
      return it->second;
    }
    llvm::PHINode* merged = llvm::PHINode::Create(accumulator_type(m_context),
                                                  phis[0]->getNumIncomingValues(), "wmma.accumulator");
    merged->insertBefore(phis[0]->getParent()->getFirstNonPHI());
    m_made.push_back(merged);
    m_phis[phis] = merged;
    for (unsigned i = 0; i < phis[0]->getNumIncomingValues(); ++i) {
      llvm::BasicBlock* from = phis[0]->getIncomingBlock(i);
      std::array<llvm::Value*, k_c_words> incoming{};
      for (unsigned w = 0; w < k_c_words; ++w) {
        int index = phis[w]->getBasicBlockIndex(from);
        if (index < 0) {
          return nullptr;
        }
        incoming[w] = phis[w]->getIncomingValue(static_cast<unsigned>(index));
      }
      llvm::Value* value = find_words(incoming);
      if (value == nullptr) {
        return nullptr;
      }
      merged->addIncoming(value, from);
    }
    return merged;
  }

  MmaLayout m_family;
  llvm::LLVMContext& m_context;
  std::map<std::array<llvm::PHINode*, k_c_words>, llvm::PHINode*> m_phis;
  std::vector<llvm::PHINode*> m_made;
};

// Removes what the replaced marks leave unused: the PTX words' phis (cycles through a loop) and
// the instructions only they used.
void remove_dead_code(llvm::Function& function)
{
  llvm::SmallVector<llvm::WeakTrackingVH, 32> phis;
  for (llvm::BasicBlock& block : function) {
    for (llvm::PHINode& phi : block.phis()) {
      phis.push_back(&phi);
    }
  }
  for (llvm::WeakTrackingVH& handle : phis) {
    if (auto* phi = llvm::dyn_cast_or_null<llvm::PHINode>(handle)) {
      llvm::RecursivelyDeleteDeadPHINode(phi);
    }
  }
  llvm::SmallVector<llvm::WeakTrackingVH, 64> dead;
  for (llvm::Instruction& instruction : llvm::instructions(function)) {
    if (llvm::isInstructionTriviallyDead(&instruction)) {
      dead.push_back(&instruction);
    }
  }
  llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(dead);
}

size_t keep_accumulators(llvm::Function& function)
{
  size_t kept = 0;
  for (const Mark& mark : marks_of(function)) {
    if (!mark.to_wmma) {
      continue;
    }
    std::array<llvm::Value*, k_c_words> words{};
    for (unsigned w = 0; w < k_c_words; ++w) {
      words[w] = mark.call->getArgOperand(w);
    }
    AccumulatorFinder finder(mark.family, function.getContext());
    if (llvm::Value* accumulator = finder.find(words)) {
      mark.call->replaceAllUsesWith(accumulator);
      mark.call->eraseFromParent();
      ++kept;
    }
  }
  if (kept > 0) {
    remove_dead_code(function);
  }
  return kept;
}

// Moves D marks used only after their loop to the loop's one exit, loop by loop outwards.
void sink_out_of_loops(llvm::Function& function, const llvm::DominatorTree& dominators,
                       const llvm::LoopInfo& loops)
{
  for (const Mark& mark : marks_of(function)) {
    if (mark.to_wmma) {
      continue;
    }
    llvm::CallInst* call = mark.call;
    for (const llvm::Loop* loop = loops.getLoopFor(call->getParent()); loop != nullptr;
         loop = loops.getLoopFor(call->getParent())) {
      llvm::BasicBlock* exit = loop->getUniqueExitBlock();
      if (exit == nullptr || !dominators.dominates(call->getParent(), exit)) {
        break;
      }
      bool movable = true;
      for (llvm::User* user : call->users()) {
        auto* instruction = llvm::cast<llvm::Instruction>(user);
        auto* phi = llvm::dyn_cast<llvm::PHINode>(instruction);
        if (loop->contains(instruction->getParent()) ||
            (phi != nullptr && phi->getParent() == exit && phi->hasConstantValue() != call)) {
          movable = false;
        }
      }
      if (!movable) {
        break;
      }
      call->moveBefore(&*exit->getFirstInsertionPt());
      llvm::SmallVector<llvm::PHINode*, 4> merged;
      for (llvm::User* user : call->users()) {
        if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user); phi != nullptr && phi->getParent() == exit) {
          merged.push_back(phi);
        }
      }
      for (llvm::PHINode* phi : merged) {
        phi->replaceAllUsesWith(call);
        phi->eraseFromParent();
      }
    }
  }
}

// One word of a remap, as a remap of its own.
MmaWordRemap single_word(const MmaWordRemap& remap, int word)
{
  MmaWordRemap one;
  one.words = 1;
  for (size_t lane = 0; lane * static_cast<size_t>(remap.words) < remap.sources.size(); ++lane) {
    one.sources.push_back(remap.sources[lane * static_cast<size_t>(remap.words) + static_cast<size_t>(word)]);
  }
  return one;
}

void expand(const Mark& mark)
{
  llvm::IRBuilder<> b(mark.call);
  llvm::CallInst* call = mark.call;
  const unsigned constant_space = llvm::AMDGPUAS::CONSTANT_ADDRESS;
  const MmaLayoutSpec ptx{MmaLayout::ptx, MmaOperand::c, 32};
  const MmaLayoutSpec wmma{mark.family, MmaOperand::c, 32};
  // %laneid as hooks_amdgpu.cpp reads it (wave32).
  llvm::Value* lane = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {}, {b.getInt32(0xffffffffU), b.getInt32(0)});
  llvm::Value* result = nullptr;
  if (mark.to_wmma) {
    std::vector<llvm::Value*> words;
    for (unsigned w = 0; w < k_c_words; ++w) {
      words.push_back(call->getArgOperand(w));
    }
    std::vector<llvm::Value*> moved = emit_word_remap(b, layout_word_remap(wmma, ptx), lane,
                                                      bpermute_fetch(b, words), constant_space);
    result = llvm::PoisonValue::get(call->getType());
    for (unsigned e = 0; e < moved.size(); ++e) {
      result = b.CreateInsertElement(result, b.CreateBitCast(moved[e], b.getFloatTy()), e);
    }
  } else {
    llvm::Value* accumulator = call->getArgOperand(0);
    int word = static_cast<int>(llvm::cast<llvm::ConstantInt>(call->getArgOperand(1))->getZExtValue());
    std::vector<llvm::Value*> words;
    for (unsigned e = 0; e < k_accumulator_elements; ++e) {
      words.push_back(b.CreateBitCast(b.CreateExtractElement(accumulator, e), b.getInt32Ty()));
    }
    result = emit_word_remap(b, single_word(layout_word_remap(ptx, wmma), word), lane,
                             bpermute_fetch(b, words), constant_space)[0];
  }
  call->replaceAllUsesWith(result);
  call->eraseFromParent();
}

size_t expand_marks(llvm::Function& function)
{
  std::vector<Mark> marks = marks_of(function);
  for (const Mark& mark : marks) {
    expand(mark);
  }
  return marks.size();
}

} // namespace

llvm::Value* mark_wmma_accumulator(llvm::IRBuilder<>& b, MmaLayout family,
                                   const std::vector<llvm::Value*>& c_words)
{
  return call_mark(b, std::string(k_to_wmma) + family_name(family), accumulator_type(b.getContext()),
                   c_words);
}

llvm::Value* mark_ptx_word(llvm::IRBuilder<>& b, MmaLayout family, llvm::Value* d, int word)
{
  return call_mark(b, std::string(k_to_ptx) + family_name(family), b.getInt32Ty(),
                   {d, b.getInt32(static_cast<uint32_t>(word))});
}

size_t expand_wmma_accumulator_moves(llvm::Module& module)
{
  size_t expanded = 0;
  std::vector<llvm::Function*> declarations;
  for (llvm::Function& function : module) {
    llvm::StringRef name = function.getName();
    if (function.isDeclaration() && (name.starts_with(k_to_wmma) || name.starts_with(k_to_ptx))) {
      declarations.push_back(&function);
    } else if (!function.isDeclaration()) {
      expanded += expand_marks(function);
    }
  }
  for (llvm::Function* declaration : declarations) {
    declaration->eraseFromParent();
  }
  return expanded;
}

llvm::PreservedAnalyses WmmaAccumulatorPass::run(llvm::Function& function,
                                                 llvm::FunctionAnalysisManager& analyses)
{
  if (marks_of(function).empty()) {
    return llvm::PreservedAnalyses::all();
  }
  keep_accumulators(function);
  sink_out_of_loops(function, analyses.getResult<llvm::DominatorTreeAnalysis>(function),
                    analyses.getResult<llvm::LoopAnalysis>(function));
  expand_marks(function);
  llvm::PreservedAnalyses preserved;
  preserved.preserveSet<llvm::CFGAnalyses>();
  return preserved;
}

} // namespace d4r::compiler::translate
