// mma.sync m16n8k16 (compiler/translate/lower_mma.cpp) for the AMDGPU targets: the mma_tile corpus
// kernels translate and link for all six targets with the native WMMA lowering and with the
// portable one (TranslateOptions::mma_native); the disassembly shows v_wmma on gfx11/gfx12 where
// the types allow (e4m3 on gfx11: the portable ds_bpermute lowering in the accuracy set, the f16
// WMMA in the fast set), and none in portable mode;
// forms other than m16n8k16.row.col with f16/bf16/e4m3/e5m2 inputs are "unsupported:" errors.
// Also the shape of the FP8/f16 paths that FP8 kernels share (the last two tests).

#include "test_compiler_translate_support.hpp"

#include <sstream>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The disassembly of one kernel: from its "<name>:" label to the next label.
std::string kernel_disassembly(const std::string& text, const std::string& name)
{
  size_t start = text.find("<" + name + ">:");
  if (start == std::string::npos) {
    return "";
  }
  size_t end = text.find(">:\n", start + name.size() + 3);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool contains(const std::string& text, const std::string& what)
{
  return text.find(what) != std::string::npos;
}

TranslateOptions gpu_options(const std::string& target, bool native)
{
  TranslateOptions options = amdgpu_options(target);
  options.mma_native = native;
  return options;
}

TEST(TranslateMma, CorpusTranslatesForTheHost)
{
  for (const char* name : {"mma_tile.sm_80.ptx", "mma_tile.sm_86.ptx", "mma_tile.sm_89.ptx",
                           "mma_tile.sm_90.ptx"}) {
    SCOPED_TRACE(name);
    Expected<Translation> host = translate_text(read_text(fs::path(D4R_PTX_DIR) / name), host_options());
    ASSERT_TRUE(host) << host.error().message;
    EXPECT_EQ(verify_text(*host->module), "");
    EXPECT_TRUE(contains(ir_text(*host->module), "d4r_rt_warp_gather"));
  }
}

void check_target(const std::string& text, bool has_e4m3, const std::string& target, bool native)
{
  SCOPED_TRACE(target + (native ? " native" : " portable"));
  Expected<Translation> gpu = translate_text(text, gpu_options(target, native));
  ASSERT_TRUE(gpu) << gpu.error().message;
  ASSERT_EQ(verify_text(*gpu->module), "");
  Expected<std::vector<std::byte>> object = code_object(*gpu, target);
  ASSERT_TRUE(object) << object.error().message;
  std::string disassembly = disassemble(*object, target);
  std::string f16 = kernel_disassembly(disassembly, "enc0_gemm_f16");
  std::string e4m3 = kernel_disassembly(disassembly, "enc0_gemm_e4m3");
  ASSERT_FALSE(f16.empty()) << disassembly.substr(0, 2000);
  bool gfx12 = target.starts_with("gfx12");
  if (!native) {
    EXPECT_FALSE(contains(disassembly, "v_wmma"));
    EXPECT_TRUE(contains(f16, "ds_bpermute_b32"));
    return;
  }
  EXPECT_TRUE(contains(f16, "v_wmma_f32_16x16x16_f16")) << f16;
  if (has_e4m3) {
    ASSERT_FALSE(e4m3.empty());
    if (gfx12) {
      EXPECT_TRUE(contains(e4m3, "v_wmma_f32_16x16x16_fp8_fp8")) << e4m3;
    } else { // gfx11 has no FP8 WMMA: in the accuracy set (the default), the portable lowering
      EXPECT_FALSE(contains(e4m3, "v_wmma")) << e4m3;
      EXPECT_TRUE(contains(e4m3, "ds_bpermute_b32"));
      // FP8 bytes decode by table lookup (no byte conversion), and the products are summed in
      // f64 as the H200's f16 tensor-core steps sum them: each truncated (v_trunc_f64) to the
      // step's quantum (mma_fragments.hpp mma_fp8_sum)
      EXPECT_TRUE(contains(e4m3, "v_trunc_f64")) << e4m3;
      EXPECT_FALSE(contains(e4m3, "v_cvt_f32_ubyte")) << e4m3;
    }
  }
}

TEST(TranslateMma, CorpusLinksForEveryTargetNativeAndPortable)
{
  for (const char* name : {"mma_tile.sm_86.ptx", "mma_tile.sm_89.ptx"}) {
    SCOPED_TRACE(name);
    std::string text = read_text(fs::path(D4R_PTX_DIR) / name);
    bool has_e4m3 = contains(text, "e4m3.e4m3");
    for (const char* target : k_targets) {
      check_target(text, has_e4m3, target, true);
      check_target(text, has_e4m3, target, false);
    }
  }
}

// mma_tile.sm_89 (f16 and e4m3 gemms) translated natively for `target` in the fast set.
Expected<Translation> fast_mma_tile(const char* target)
{
  TranslateOptions options = gpu_options(target, true);
  options.float_policy = FloatPolicy::fast;
  return translate_text(read_text(fs::path(D4R_PTX_DIR) / "mma_tile.sm_89.ptx"), options);
}

// The fast set takes gfx11's f16 WMMA for FP8 inputs (decoded to f16 in the PTX layout, then
// moved), summing as the hardware does; the accuracy set keeps the H200's sums (above).
TEST(TranslateMma, Fp8OnGfx11UsesTheF16WmmaInTheFastSet)
{
  for (const char* target : {"gfx1100", "gfx1103"}) {
    SCOPED_TRACE(target);
    Expected<Translation> gpu = fast_mma_tile(target);
    ASSERT_TRUE(gpu) << gpu.error().message;
    ASSERT_EQ(verify_text(*gpu->module), "");
    Expected<std::vector<std::byte>> object = code_object(*gpu, target);
    ASSERT_TRUE(object) << object.error().message;
    std::string e4m3 = kernel_disassembly(disassemble(*object, target), "enc0_gemm_e4m3");
    ASSERT_FALSE(e4m3.empty());
    EXPECT_TRUE(contains(e4m3, "v_wmma_f32_16x16x16_f16")) << e4m3;
    EXPECT_FALSE(contains(e4m3, "v_trunc_f64")) << e4m3;
    EXPECT_FALSE(contains(e4m3, "_f64")) << e4m3; // no scalar FP8 model left
  }
}

// The native path's lane tables (which lane and word each lane fetches) are a base plus bit
// fields of the lane id times constants: computed with a few integer operations, not loaded from a
// constant table (mma_fragments.hpp mma_lane_table). The CPU executor's runs (TranslateMmaRun,
// the golden gemms) compute the same tables the same way.
TEST(TranslateMma, TheNativeRemapsNeedNoLaneTableInMemory)
{
  for (const char* target : {"gfx1100", "gfx1201"}) {
    SCOPED_TRACE(target);
    Expected<Translation> gpu = fast_mma_tile(target);
    ASSERT_TRUE(gpu) << gpu.error().message;
    std::string ir = ir_text(*gpu->module);
    EXPECT_GE(occurrences(ir, "call <8 x float> @llvm.amdgcn.wmma"), 2) << ir;
    EXPECT_EQ(occurrences(ir, "@d4r.mma.lanes"), 0) << ir;
  }
}

TEST(TranslateMma, OtherCorpusFilesTranslateForEveryTarget)
{
  for (const char* name : {"mma_tile.sm_80.ptx", "mma_tile.sm_90.ptx"}) {
    std::string text = read_text(fs::path(D4R_PTX_DIR) / name);
    for (const char* target : k_targets) {
      SCOPED_TRACE(std::string(name) + " " + target);
      Expected<Translation> gpu = translate_text(text, gpu_options(target, true));
      ASSERT_TRUE(gpu) << gpu.error().message;
      EXPECT_EQ(verify_text(*gpu->module), "");
    }
  }
}

std::string mma_kernel(const std::string& form, int a_words, int b_words, int c_words)
{
  auto list = [](const char* prefix, int first, int count) {
    std::string text = "{";
    for (int i = 0; i < count; ++i) {
      text += (i != 0 ? ", " : "") + std::string(prefix) + std::to_string(first + i);
    }
    return text + "}";
  };
  bool c_f32 = c_words == 4;
  std::string c_regs = c_f32 ? list("%f", 1, 4) : list("%r", 9, 2);
  size_t d_at = form.find(".col.") + 5;
  std::string d_regs = form.compare(d_at, 3, "f32") == 0 || form.compare(d_at, 3, "s32") == 0
                           ? list("%f", 5, 4)
                           : list("%r", 11, 2);
  return kernel_text("  mma.sync.aligned." + form + " " + d_regs + ", " + list("%r", 1, a_words) +
                     ", " + list("%r", 5, b_words) + ", " + c_regs + ";\n" + "  st.global.b32 [%rd1], %r11;\n  st.global.f32 [%rd1+4], %f5;\n");
}

TEST(TranslateMma, Bf16UsesTheBf16WmmaOnEveryRdnaGeneration)
{
  std::string text = mma_kernel("m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, 4);
  for (const char* target : k_targets) {
    SCOPED_TRACE(target);
    Expected<Translation> gpu = translate_text(text, gpu_options(target, true));
    ASSERT_TRUE(gpu) << gpu.error().message;
    Expected<std::vector<std::byte>> object = code_object(*gpu, target);
    ASSERT_TRUE(object) << object.error().message;
    EXPECT_TRUE(contains(disassemble(*object, target), "v_wmma_f32_16x16x16_bf16"));
  }
}

// Two mma.sync of one block, the second accumulating into the first's D (as nvcc unrolls a K loop),
// or taking the same registers in another order.
std::string mma_chain_kernel(const std::string& second_c)
{
  const std::string form = "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, ";
  std::string body;
  for (int word = 1; word <= 8; ++word) {
    body += "  ld.global.b32 %r" + std::to_string(word) + ", [%rd2+" + std::to_string(4 * word) + "];\n";
  }
  for (int word = 1; word <= 4; ++word) {
    body += "  ld.global.f32 %f" + std::to_string(word) + ", [%rd2+" + std::to_string(32 + 4 * word) + "];\n";
  }
  body += form + "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};\n";
  body += form + "{%r1, %r2, %r3, %r4}, {%r7, %r8}, " + second_c + ";\n";
  for (int word = 1; word <= 4; ++word) {
    body += "  st.global.f32 [%rd1+" + std::to_string(4 * word) + "], %f" + std::to_string(word) + ";\n";
  }
  return kernel_text(body);
}

// An mma whose C is the previous mma's D, unchanged, takes that WMMA's accumulator as it is: no
// remap of the first D to the PTX layout and back (the round trip is the identity on the
// elements D reads: MmaLaneMaps.AnAccumulatorRemappedToPtxAndBackIsItselfInColumnsZeroToSeven).
TEST(TranslateMma, AChainedAccumulatorStaysInTheWmmaLayout)
{
  for (const char* target : {"gfx1100", "gfx1201"}) {
    SCOPED_TRACE(target);
    int shuffles[2] = {};
    for (int chained = 0; chained < 2; ++chained) {
      Expected<Translation> gpu = translate_text(
          mma_chain_kernel(chained != 0 ? "{%f1, %f2, %f3, %f4}" : "{%f2, %f1, %f3, %f4}"),
          gpu_options(target, true));
      ASSERT_TRUE(gpu) << gpu.error().message;
      ASSERT_EQ(verify_text(*gpu->module), "");
      std::string ir = ir_text(*gpu->module);
      EXPECT_EQ(occurrences(ir, "call <8 x float> @llvm.amdgcn.wmma"), 2) << ir;
      shuffles[chained] = occurrences(ir, "call i32 @llvm.amdgcn.ds.bpermute");
    }
    // The C remap of the second mma (8 words) and the D remap of the first (4 words) go.
    EXPECT_GE(shuffles[0], shuffles[1] + 12) << "permuted " << shuffles[0] << ", chained " << shuffles[1];
  }
}

// A K loop, acc = mma(a, b, acc), with the words of A and B each lane loads per iteration; with
// `touch` the loop also changes one accumulator word between the mmas.
std::string mma_loop_kernel(bool touch)
{
  std::string body =
      "  mov.f32 %f1, 0f00000000;\n  mov.f32 %f2, 0f00000000;\n  mov.f32 %f3, 0f00000000;\n"
      "  mov.f32 %f4, 0f00000000;\n  ld.global.u32 %r14, [%rd2];\n  mov.u32 %r13, 0;\n"
      "  mov.u32 %r15, %tid.x;\n  mul.wide.u32 %rd3, %r15, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
      "loop:\n";
  for (int word = 1; word <= 6; ++word) {
    body += "  ld.global.b32 %r" + std::to_string(word) + ", [%rd4+" + std::to_string(128 * word) + "];\n";
  }
  body += "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
          "{%r5, %r6}, {%f1, %f2, %f3, %f4};\n";
  if (touch) {
    body += "  add.f32 %f2, %f2, 0f3F800000;\n";
  }
  body += "  add.s64 %rd4, %rd4, 1024;\n  add.u32 %r13, %r13, 1;\n  setp.lt.u32 %p1, %r13, %r14;\n"
          "  @%p1 bra loop;\n";
  for (int word = 1; word <= 4; ++word) {
    body += "  st.global.f32 [%rd1+" + std::to_string(4 * word) + "], %f" + std::to_string(word) + ";\n";
  }
  return kernel_text(body);
}

// The ds_bpermutes in the blocks that hold a WMMA (the loop's body).
int shuffles_beside_wmma(const llvm::Module& module)
{
  int found = 0;
  for (const llvm::Function& function : module) {
    for (const llvm::BasicBlock& block : function) {
      int moves = 0;
      bool wmma = false;
      for (const llvm::Instruction& instruction : block) {
        const auto* call = llvm::dyn_cast<llvm::CallInst>(&instruction);
        const llvm::Function* callee = call != nullptr ? call->getCalledFunction() : nullptr;
        if (callee != nullptr) {
          wmma = wmma || callee->getName().starts_with("llvm.amdgcn.wmma");
          moves += callee->getName() == "llvm.amdgcn.ds.bpermute" ? 1 : 0;
        }
      }
      found += wmma ? moves : 0;
    }
  }
  return found;
}

// The accumulator of a K loop is a phi of WMMA accumulators (wmma_accumulator.hpp): no C remap in
// the loop, and D moves to the PTX layout once, after it. Where the loop changes a word of the
// accumulator, the remaps stay.
TEST(TranslateMma, ALoopsAccumulatorStaysInTheWmmaLayout)
{
  for (const char* target : {"gfx1100", "gfx1201"}) {
    SCOPED_TRACE(target);
    int shuffles[2] = {};
    int in_loop[2] = {};
    for (int touch = 0; touch < 2; ++touch) {
      Expected<Translation> gpu = translate_text(mma_loop_kernel(touch != 0), gpu_options(target, true));
      ASSERT_TRUE(gpu) << gpu.error().message;
      ASSERT_EQ(verify_text(*gpu->module), "");
      std::string ir = ir_text(*gpu->module);
      EXPECT_EQ(occurrences(ir, "d4r.wmma"), 0) << ir; // every mark expanded
      EXPECT_EQ(occurrences(ir, "= phi <8 x float>") > 0, touch == 0) << ir;
      EXPECT_GE(occurrences(ir, "call <8 x float> @llvm.amdgcn.wmma"), 1) << ir;
      shuffles[touch] = occurrences(ir, "call i32 @llvm.amdgcn.ds.bpermute");
      in_loop[touch] = shuffles_beside_wmma(*gpu->module);
      Expected<std::vector<std::byte>> object = code_object(*gpu, target);
      ASSERT_TRUE(object) << object.error().message;
    }
    // The C remap (8 words, 1 or 2 moves each) goes, and D's (4 words, 2 to 8 moves each) leaves
    // the loop; A and B still move in it.
    EXPECT_GE(shuffles[1], shuffles[0] + 8) << "kept " << shuffles[0] << ", touched " << shuffles[1];
    EXPECT_GE(shuffles[0], in_loop[0] + 4 * 2) << "kept: " << in_loop[0] << " of " << shuffles[0] << " in the loop";
    EXPECT_GT(in_loop[0], 0);
    EXPECT_EQ(in_loop[1], shuffles[1]);
  }
}

// Translations that are not optimised (no pass pipeline) get every mark expanded too.
TEST(TranslateMma, MarksAreExpandedWithoutThePipeline)
{
  TranslateOptions options = gpu_options("gfx1100", true);
  options.optimise = false;
  Expected<Translation> gpu = translate_text(mma_loop_kernel(false), options);
  ASSERT_TRUE(gpu) << gpu.error().message;
  ASSERT_EQ(verify_text(*gpu->module), "");
  std::string ir = ir_text(*gpu->module);
  EXPECT_EQ(occurrences(ir, "d4r.wmma"), 0) << ir;
  EXPECT_GE(occurrences(ir, "call i32 @llvm.amdgcn.ds.bpermute"), 8 + 4) << ir; // C and D remaps
}

TEST(TranslateMma, OtherShapesAndFormsAreUnsupported)
{
  struct Form {
    const char* modifiers;
    int a, b, c;
  };
  // Forms the ISA does not have (the other shapes and types: test_compiler_translate_mma_forms.cpp).
  for (const Form& form : {Form{"m8n8k4.row.col.f16.f16.f16.f32", 2, 2, 4},
                           Form{"m16n8k16.row.col.f16.bf16.bf16.f16", 4, 2, 2},
                           Form{"m16n8k16.row.col.f16.e4m3.e4m3.f32", 2, 1, 4},
                           Form{"m16n8k16.row.col.f32.e5m2.e5m2.f16", 2, 1, 2},
                           Form{"m16n8k8.row.col.f32.tf32.tf32.f16", 4, 2, 2},
                           Form{"m16n8k16.row.col.satfinite.f32.f16.f16.f32", 4, 2, 4},
                           Form{"m16n8k64.row.col.s32.s8.s8.s32", 4, 2, 4},
                           Form{"m16n8k128.row.col.s32.b1.b1.s32", 2, 1, 4},
                           Form{"m8n8k16.col.row.s32.s8.s8.s32", 1, 1, 2}}) {
    SCOPED_TRACE(form.modifiers);
    std::string text = mma_kernel(form.modifiers, form.a, form.b, form.c);
    for (const TranslateOptions& options : {host_options(), gpu_options("gfx1201", true)}) {
      Expected<Translation> translation = translate_text(text, options);
      ASSERT_FALSE(translation);
      EXPECT_TRUE(contains(translation.error().message,
                           std::string("unsupported: mma.sync.aligned.") + form.modifiers + " at line"))
          << translation.error().message;
    }
  }
}

TEST(TranslateMma, WrongOperandCountIsAnError)
{
  std::string text = mma_kernel("m16n8k16.row.col.f32.f16.f16.f32", 3, 2, 4);
  Expected<Translation> translation = translate_text(text, host_options());
  ASSERT_FALSE(translation);
  EXPECT_TRUE(contains(translation.error().message, "mma operand 2: expected {4 registers}"))
      << translation.error().message;
}

// The FP8 and f16 hot paths the FP8 corpus kernels share with enc0_gemm_e4m3 (fp8_decode,
// texture_layers.sm_89) on AMDGPU, where no test can run them: their shape. The math is argued
// where they are written (kernels/support/rounding.c and fp8.c, lower_convert.cpp widen_f16); the
// host runs the same library routines against the goldens.
TEST(TranslateMma, Fp8DecodeKernelHasNoDoubleArithmetic)
{
  // f16x2 add/fma round to nearest in hardware (v_fma_f16, v_pk_*), the gfx11 e4m3 decode is
  // integer operations: nothing of the software routines' f64 arithmetic remains.
  std::string text = read_text(fs::path(D4R_PTX_DIR) / "fp8_decode.sm_89.ptx");
  for (const char* target : {"gfx1100", "gfx1201"}) {
    SCOPED_TRACE(target);
    Expected<Translation> gpu = translate_text(text, gpu_options(target, true));
    ASSERT_TRUE(gpu) << gpu.error().message;
    Expected<std::vector<std::byte>> object = code_object(*gpu, target);
    ASSERT_TRUE(object) << object.error().message;
    std::string code = kernel_disassembly(disassemble(*object, target), "dec0_fp8_weights");
    ASSERT_FALSE(code.empty());
    EXPECT_FALSE(contains(code, "_f64")) << code;
    EXPECT_TRUE(contains(code, "_f16")) << code;
    EXPECT_EQ(contains(code, "v_cvt_pk_f32_fp8"), std::string(target) == "gfx1201") << code;
  }
}

TEST(TranslateMma, HalfArithmeticAndWideningShapes)
{
  std::string body = "  ld.global.u32 %r1, [%rd2];\n  ld.global.u32 %r2, [%rd2+4];\n"
                     "  add.f16x2 %r3, %r1, %r2;\n  fma.rn.f16x2 %r4, %r1, %r2, %r3;\n"
                     "  mul.rn.f16x2 %r5, %r4, %r1;\n  sub.rn.f16x2 %r6, %r5, %r2;\n"
                     "  mov.b32 {%rs1, %rs2}, %r6;\n  cvt.f32.f16 %f1, %rs1;\n"
                     "  cvt.ftz.f32.f16 %f2, %rs2;\n  add.f32 %f3, %f1, %f2;\n"
                     "  st.global.f32 [%rd1], %f3;";
  for (const char* target : {"gfx1100", "gfx1201"}) {
    SCOPED_TRACE(target);
    Expected<Translation> gpu = translate_text(kernel_text(body), gpu_options(target, true));
    ASSERT_TRUE(gpu) << gpu.error().message;
    std::string ir = ir_text(*gpu->module);
    // Packed: both halves in one operation (v_pk_fma_f16, v_pk_mul_f16, v_pk_add_f16).
    EXPECT_TRUE(contains(ir, "@llvm.fma.v2f16") && contains(ir, "fmul <2 x half>") &&
                contains(ir, "fadd <2 x half>")) << ir;
    EXPECT_TRUE(contains(ir, "fpext half")) << ir;
    EXPECT_FALSE(contains(ir, "double")) << ir;
    EXPECT_FALSE(contains(ir, " br ")) << ir;
    // The f16 results' NaNs reach only the f32 add, whose NaN is stored: that one is made PTX's
    // (0x7fffffff), the f16 ones need not be (nan_observation.hpp).
    EXPECT_FALSE(contains(ir, "32767") || contains(ir, "0xH7FFF")) << ir;
    EXPECT_TRUE(contains(ir, "0x7FFFFFFFE0000000")) << ir;
  }
  // .ftz f16 arithmetic flushes what is tiny before rounding (H200: mul.rn.ftz.f16 0x0400 *
  // 0x3bff = 0), which the hardware instruction cannot tell: it takes the exact software routine
  // (through f64), like directed rounding.
  Expected<Translation> ftz = translate_text(
      kernel_text("  ld.global.u32 %r1, [%rd2];\n  mul.rn.ftz.f16x2 %r2, %r1, %r1;\n"
                  "  st.global.u32 [%rd1], %r2;"),
      gpu_options("gfx1201", true));
  ASSERT_TRUE(ftz) << ftz.error().message;
  EXPECT_TRUE(contains(ir_text(*ftz->module), "double")) << ir_text(*ftz->module);
  // Directed rounding keeps the exact software routine (through f64).
  Expected<Translation> rz = translate_text(
      kernel_text("  ld.global.u32 %r1, [%rd2];\n  add.rz.f16x2 %r2, %r1, %r1;\n"
                  "  st.global.u32 [%rd1], %r2;"),
      gpu_options("gfx1100", true));
  ASSERT_TRUE(rz) << rz.error().message;
  EXPECT_TRUE(contains(ir_text(*rz->module), "double"));
}

} // namespace
} // namespace d4r::compiler::translate::test
