#pragma once
// Special-register arithmetic both targets share: the lane masks derived from %laneid, the linear
// warp index, and the registers neither target models (%smid is 0, %nsmid 1).

#include <llvm/IR/IRBuilder.h>

#include <string_view>

namespace d4r::compiler::translate {

// %lanemask_{eq,lt,le,gt,ge} from the i32 %laneid; nullptr for another name.
inline llvm::Value* lane_mask(llvm::IRBuilder<>& builder, std::string_view name,
                              llvm::Value* laneid)
{
  llvm::Value* eq = builder.CreateShl(builder.getInt32(1), laneid);
  llvm::Value* lt = builder.CreateSub(eq, builder.getInt32(1));
  if (name == "%lanemask_eq") {
    return eq;
  }
  if (name == "%lanemask_lt") {
    return lt;
  }
  if (name == "%lanemask_le") {
    return builder.CreateOr(eq, lt);
  }
  if (name == "%lanemask_gt") {
    return builder.CreateNot(builder.CreateOr(eq, lt));
  }
  if (name == "%lanemask_ge") {
    return builder.CreateNot(lt);
  }
  return nullptr;
}

// Registers with a fixed value on both targets; nullptr for another name.
inline llvm::Value* fixed_register(llvm::IRBuilder<>& builder, std::string_view name)
{
  if (name == "%smid" || name == "%gridid") {
    return builder.getInt32(0);
  }
  if (name == "%nsmid") {
    return builder.getInt32(1);
  }
  if (name == "%warpsize") {
    return builder.getInt32(32);
  }
  return nullptr;
}

// A cycle counter: %clock (i32), %clock_hi, %clock64 / %globaltimer (i64).
inline llvm::Value* clock_register(llvm::IRBuilder<>& builder, std::string_view name)
{
  bool wide = name == "%clock64" || name == "%globaltimer";
  bool low = name == "%clock" || name == "%globaltimer_lo";
  bool high = name == "%clock_hi" || name == "%globaltimer_hi";
  if (!wide && !low && !high) {
    return nullptr;
  }
  llvm::Value* counter = builder.CreateIntrinsic(llvm::Intrinsic::readcyclecounter, {}, {});
  if (wide) {
    return counter;
  }
  if (high) {
    counter = builder.CreateLShr(counter, 32);
  }
  return builder.CreateTrunc(counter, builder.getInt32Ty());
}

} // namespace d4r::compiler::translate
