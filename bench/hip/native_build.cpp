#include "bench/hip/native_build.hpp"

#include "compiler/backends/llvm_codegen.hpp"

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cctype>
#include <cstring>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace d4r::bench {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_inline_ptx = "__d4r_inline_ptx";

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Expected<void> write_text(const fs::path& path, const std::string& text)
{
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    return make_error(ErrorCode::io, "bench: cannot write " + path.string());
  }
  return {};
}

bool is_identifier(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The index just past the string or character literal that starts at `i`.
size_t skip_literal(const std::string& text, size_t i)
{
  const char quote = text[i];
  for (++i; i < text.size() && text[i] != quote; ++i) {
    if (text[i] == '\\') {
      ++i;
    }
  }
  return i + 1;
}

// The index of the ')' matching the '(' at `open`, or npos.
size_t matching_paren(const std::string& text, size_t open)
{
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '"' || text[i] == '\'') {
      i = skip_literal(text, i) - 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string::npos;
}

// `asm [volatile] ( ... )` at `i`: the index past its ')', or nullopt if it is not one.
std::optional<size_t> asm_statement_end(const std::string& text, size_t i)
{
  if (text.compare(i, 3, "asm") != 0 || (i > 0 && is_identifier(text[i - 1])) ||
      (i + 3 < text.size() && is_identifier(text[i + 3]))) {
    return std::nullopt;
  }
  size_t j = i + 3;
  for (const char* word : {"volatile", "__volatile__"}) {
    size_t k = text.find_first_not_of(" \t\n", j);
    if (k != std::string::npos && text.compare(k, std::strlen(word), word) == 0) {
      j = k + std::strlen(word);
    }
  }
  j = text.find_first_not_of(" \t\n", j);
  if (j == std::string::npos || text[j] != '(') {
    return std::nullopt;
  }
  size_t close = matching_paren(text, j);
  return close == std::string::npos ? std::nullopt : std::optional<size_t>(close + 1);
}

// Every asm statement -> a call to the undefined k_inline_ptx (comments and literals kept).
std::string without_inline_ptx(const std::string& text)
{
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "//") == 0 || text.compare(i, 2, "/*") == 0) {
      size_t end = text[i + 1] == '/' ? text.find('\n', i) : text.find("*/", i);
      end = end == std::string::npos ? text.size() : end + (text[i + 1] == '/' ? 0 : 2);
      out.append(text, i, end - i);
      i = end;
    } else if (text[i] == '"' || text[i] == '\'') {
      size_t end = skip_literal(text, i);
      out.append(text, i, end - i);
      i = end;
    } else if (std::optional<size_t> end = asm_statement_end(text, i)) {
      out += std::string(k_inline_ptx) + "()";
      i = *end;
    } else {
      out += text[i++];
    }
  }
  return std::string("extern \"C\" __device__ void ") + k_inline_ptx + "();\n#line 1\n" + out;
}

// The source and the headers beside it, without inline PTX, in work_dir/src: the .cu's new path.
Expected<fs::path> prepare_sources(const NativeSource& source, const fs::path& work_dir)
{
  fs::path dir = work_dir / "src";
  std::error_code error;
  fs::create_directories(dir, error);
  for (const fs::directory_entry& entry : fs::directory_iterator(source.cu.parent_path())) {
    if (entry.path().extension() == ".cuh" || entry.path() == source.cu) {
      TRY(write_text(dir / entry.path().filename(), without_inline_ptx(read_text(entry.path()))));
    }
  }
  return dir / source.cu.filename();
}

Expected<std::string> run_tool(const std::vector<std::string>& args, const fs::path& output)
{
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::string out = output.string();
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(out),
                                                llvm::StringRef(out)};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(args[0], refs, std::nullopt, redirects, 0, 0, &error);
  if (rc != 0) {
    std::string text = read_text(output);
    std::string first = text.substr(0, text.find('\n'));
    return make_error(ErrorCode::rejected, args[0] + " failed (" + std::to_string(rc) + "): " +
                                               (error.empty() ? first : error));
  }
  return read_text(output);
}

std::vector<std::string> clang_args(const NativeSource& source, const std::string& target,
                                    const fs::path& cu)
{
  std::vector<std::string> args = {D4R_CLANG, "-x", "hip", "--offload-arch=" + target,
                                   "--offload-device-only", "-nogpulib", "-nogpuinc", "-O3",
                                   "-I" D4R_HIP_SHIM_DIR "/include",
                                   "-include", D4R_HIP_SHIM_DIR "/cuda_shim.h"};
  if (source.flush_denormals) {
    args.push_back("-fgpu-flush-denormals-to-zero");
  }
  if (source.cuda_arch != 0) {
    args.push_back("-D__CUDA_ARCH__=" + std::to_string(source.cuda_arch));
  }
  args.push_back(cu.string());
  return args;
}

// Removes what `kernel` does not reach: the other kernels, then unused local definitions.
void keep_only_kernel(llvm::Module& module, const std::string& kernel)
{
  for (llvm::Function& f : llvm::make_early_inc_range(module.functions())) {
    if (f.getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL && f.getName() != kernel) {
      f.eraseFromParent();
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (llvm::Function& f : llvm::make_early_inc_range(module.functions())) {
      if (f.getName() != kernel && f.use_empty() && !f.isDeclaration()) {
        f.eraseFromParent();
        changed = true;
      }
    }
    for (llvm::GlobalVariable& g : llvm::make_early_inc_range(module.globals())) {
      if (g.use_empty() && (g.hasLocalLinkage() || g.hasWeakLinkage() || g.isDeclaration())) {
        g.eraseFromParent();
        changed = true;
      }
    }
  }
}

// Why the kernel cannot be built natively, or empty: a call left to an undefined function.
std::string missing_function(const llvm::Module& module)
{
  for (const llvm::Function& f : module.functions()) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty()) {
      continue;
    }
    if (f.getName() == k_inline_ptx) {
      return "needs inline PTX";
    }
    return "shim: no " + f.getName().str();
  }
  return "";
}

NativeKernel build_one(const llvm::Module& whole, const std::string& kernel,
                       const std::string& target, const fs::path& object)
{
  NativeKernel result;
  std::unique_ptr<llvm::Module> module = llvm::CloneModule(whole);
  keep_only_kernel(*module, kernel);
  result.why_not = missing_function(*module);
  if (!result.why_not.empty()) {
    return result;
  }
  Expected<std::string> built = run_isolated([&]() -> Expected<std::string> {
    // The shim's image accesses are inline assembly, which the object streamer parses.
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmParser();
    compiler::CodegenOptions options;
    options.target = target;
    options.optimise = false; // clang ran -O3
    options.label = "native " + kernel;
    std::string log;
    TRY_ASSIGN(std::vector<std::byte> bytes, compiler::codegen_code_object(*module, options, log));
    std::ofstream out(object, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return std::string("ok");
  });
  if (!built) {
    result.why_not = built.error().message.substr(0, built.error().message.find('\n'));
    return result;
  }
  Expected<InstructionCount> count = count_instructions(object, target, kernel);
  if (!count) {
    result.why_not = count.error().message;
    return result;
  }
  result.built = true;
  result.count = *count;
  return result;
}

} // namespace

Expected<NativeSource> native_source_of(const fs::path& ptx)
{
  const std::string name = ptx.filename().string();
  for (const fs::directory_entry& entry : fs::directory_iterator(ptx.parent_path())) {
    if (entry.path().extension() != ".cu") {
      continue;
    }
    const std::string stem = entry.path().stem().string();
    const std::string text = read_text(entry.path());
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const std::string tag = "// d4r-isa-ptx: " + name + " ";
      if (line.rfind(tag, 0) == 0) {
        size_t arch = line.find("-arch=sm_");
        int cuda_arch = arch == std::string::npos ? 0 : std::atoi(line.c_str() + arch + 9) * 10;
        return NativeSource{entry.path(), cuda_arch, line.find("-ftz=true") != std::string::npos};
      }
    }
    if (name == stem + ".ptx") {
      return NativeSource{entry.path(), 860, false}; // regenerate.sh: -arch=sm_86 -O3
    }
    if (name.rfind(stem + ".sm_", 0) == 0) {
      return NativeSource{entry.path(), std::atoi(name.c_str() + stem.size() + 4) * 10, true};
    }
  }
  return make_error(ErrorCode::not_found, "bench: no CUDA source for " + name);
}

Expected<InstructionCount> count_instructions(const fs::path& code_object, const std::string& target,
                                              const std::string& kernel)
{
  fs::path listing = code_object;
  listing += ".s";
  TRY_ASSIGN(std::string text, run_tool({D4R_LLVM_OBJDUMP, "-d", "--mcpu=" + target,
                                         code_object.string()}, listing));
  InstructionCount count;
  bool in_kernel = false;
  bool symbol_counted = true; // a symbol counts as a function once it holds an instruction
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find(" <") != std::string::npos && line.back() == ':') {
      symbol_counted = false;
      in_kernel = line.find(" <" + kernel + ">:") != std::string::npos;
    } else if (line.size() > 1 && line[0] == '\t' && line.find("s_code_end") == std::string::npos &&
               line.find_first_not_of('\t') != line.find("...")) { // "...": elided zero padding
      ++count.total;
      const size_t mnemonic = line.find_first_not_of('\t');
      const bool shuffle = line.compare(mnemonic, 11, "ds_bpermute") == 0 ||
                           line.compare(mnemonic, 10, "ds_permute") == 0 ||
                           line.compare(mnemonic, 10, "v_permlane") == 0;
      count.shuffles += shuffle ? 1 : 0;
      count.wmma += line.compare(mnemonic, 6, "v_wmma") == 0 ? 1 : 0;
      count.kernel += in_kernel ? 1 : 0;
      count.functions += symbol_counted ? 0 : 1;
      symbol_counted = true;
    }
  }
  if (count.kernel == 0) {
    return make_error(ErrorCode::not_found, "bench: no symbol " + kernel + " in " +
                                                code_object.filename().string());
  }
  return count;
}

Expected<std::map<std::string, NativeKernel>>
build_native(const NativeSource& source, const std::string& target, const fs::path& work_dir)
{
  TRY_ASSIGN(fs::path cu, prepare_sources(source, work_dir));
  fs::path bitcode = work_dir / (target + ".bc");
  std::vector<std::string> args = clang_args(source, target, cu);
  args.insert(args.end(), {"-c", "-emit-llvm", "-o", bitcode.string()});
  TRY(run_tool(args, work_dir / (target + ".clang.txt")));

  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseIRFile(bitcode.string(), diagnostic, context);
  if (!module) {
    return make_error(ErrorCode::corrupt, "bench: " + bitcode.string() + ": " +
                                              diagnostic.getMessage().str());
  }
  std::map<std::string, NativeKernel> kernels;
  for (const llvm::Function& f : module->functions()) {
    if (f.getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL && !f.isDeclaration()) {
      const std::string name = f.getName().str();
      kernels[name] = build_one(*module, name, target, work_dir / (name + "." + target + ".hsaco"));
    }
  }
  return kernels;
}

Expected<double> time_native_compile(const NativeSource& source, const std::string& target,
                                     const fs::path& work_dir)
{
  TRY_ASSIGN(fs::path cu, prepare_sources(source, work_dir));
  std::vector<std::string> args = clang_args(source, target, cu);
  args.insert(args.end(), {"--no-gpu-bundle-output", "-o", (work_dir / "all.hsaco").string()});
  auto start = std::chrono::steady_clock::now();
  TRY(run_tool(args, work_dir / "clang.txt"));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Expected<std::string> run_isolated(const std::function<Expected<std::string>()>& work)
{
  int fds[2];
  if (pipe(fds) != 0) {
    return make_error(ErrorCode::io, "bench: pipe failed");
  }
  std::fflush(nullptr);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    Expected<std::string> result = work();
    std::string message = result ? "O" + *result : "E" + result.error().message;
    for (size_t done = 0; done < message.size();) {
      ssize_t n = write(fds[1], message.data() + done, message.size() - done);
      if (n <= 0) {
        break;
      }
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) {
    message.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) {
    return make_error(ErrorCode::internal, "crashed (signal " + std::to_string(WTERMSIG(status)) + ")");
  }
  if (message.empty()) {
    return make_error(ErrorCode::internal, "the worker exited without a result");
  }
  if (message[0] == 'E') {
    return make_error(ErrorCode::rejected, message.substr(1));
  }
  return message.substr(1);
}

} // namespace d4r::bench
