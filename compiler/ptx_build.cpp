#include "compiler/ptx_build.hpp"

#include "compiler/backends/llvm_codegen.hpp"
#include "compiler/passes/registry.hpp"
#include "compiler/passes/roundf_idiom.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/translate/symbol_reach.hpp"

#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <variant>

namespace d4r::compiler {

namespace {

bool is_defined_entry(const ptx::Item& item)
{
  const ptx::Function* function = std::get_if<ptx::Function>(&item.value);
  return function != nullptr && function->is_entry && function->body;
}

// Drops every defined entry but `entry`: the build serves one kernel, and an instruction the
// translator does not know in another kernel must not fail it.
Expected<void> keep_only_entry(ptx::Module& module, const std::string& entry)
{
  bool found = false;
  std::erase_if(module.items, [&](const ptx::Item& item) {
    if (!is_defined_entry(item)) {
      return false;
    }
    bool keep = std::get<ptx::Function>(item.value).name == entry;
    found = found || keep;
    return !keep;
  });
  if (!found) {
    return make_error(ErrorCode::not_found, "ptx: no .entry " + entry + " in the module");
  }
  return {};
}

// The names an initialiser mentions ("generic(table)+4" names table).
void initialiser_names(const ptx::Initializer& init, std::set<std::string>& out)
{
  std::string word;
  for (char c : init.scalar + " ") {
    bool part = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' ||
                c == '%';
    if (part) {
      word += c;
    } else if (!word.empty()) {
      out.insert(word);
      word.clear();
    }
  }
  for (const ptx::Initializer& element : init.elements) {
    initialiser_names(element, out);
  }
}

// After keep_only_entry: drops the module-scope .global/.const variables the kept kernel never
// names (itself or through the functions it calls). Each variable left becomes a symbol of the
// code object and a host variable of its metadata (translate/module_translator.cpp), and the
// daemon serves a kernel with host variables only to a client that mirrors them: a variable of
// another kernel must not make this one unservable. A variable another one's initialiser names
// stays.
void drop_unreached_variables(ptx::Module& module)
{
  std::set<std::string> names;
  std::set<std::string> named_by_initialisers;
  for (const ptx::Item& item : module.items) {
    const auto* variable = std::get_if<ptx::Variable>(&item.value);
    if (variable == nullptr || (variable->space != ".global" && variable->space != ".const")) {
      continue;
    }
    names.insert(variable->name);
    if (variable->init) {
      initialiser_names(*variable->init, named_by_initialisers);
    }
  }
  std::map<std::string, std::set<std::string>> reach = translate::kernels_reaching(module, names);
  std::erase_if(module.items, [&](const ptx::Item& item) {
    const auto* variable = std::get_if<ptx::Variable>(&item.value);
    return variable != nullptr && names.contains(variable->name) &&
           reach[variable->name].empty() && !named_by_initialisers.contains(variable->name);
  });
}

Expected<void> run_passes(ptx::Module& module, const PtxBuild& build, std::string& log)
{
  passes::PassOptions options;
  options.target = build.target;
  if (!build.entry.empty()) {
    options.kernels = {build.entry};
  }
  for (const std::string& name : build.passes) {
    auto params = build.pass_parameters.find(name);
    options.parameters = params == build.pass_parameters.end() ? std::map<std::string, std::string>()
                                                               : params->second;
    TRY_ASSIGN(std::unique_ptr<passes::Pass> pass, passes::make_pass(name, options));
    TRY_ASSIGN(passes::PassResult result, pass->run(module));
    log += name + ": ";
    if (result.changed()) {
      log += std::to_string(result.rewrites) + (result.rewrites == 1 ? " rewrite\n" : " rewrites\n");
    } else {
      log += "unchanged\n";
    }
  }
  return {};
}

} // namespace

translate::FloatPolicy float_policy_for(Mode mode)
{
  return mode == Mode::fast ? translate::FloatPolicy::fast : translate::FloatPolicy::accuracy;
}

Expected<ptx::Module> rewrite_ptx(std::string_view text, const PtxBuild& build, std::string& log)
{
  TRY_ASSIGN(ptx::Module module, ptx::parse_module(text));
  if (!build.entry.empty()) {
    TRY(keep_only_entry(module, build.entry));
  }
  TRY(run_passes(module, build, log));
  if (std::ranges::find(build.passes, "roundf") == build.passes.end()) {
    // Exact either way; the rewritten idiom needs no directed rounding (roundf_idiom.cpp).
    if (const int64_t rewrites = passes::rewrite_proven_roundf_idioms(module); rewrites > 0) {
      log += "roundf idioms: " + std::to_string(rewrites) + (rewrites == 1 ? " rewrite\n" : " rewrites\n");
    }
  }
  return module;
}

Expected<translate::Translation> translate_ptx(std::string_view text, const PtxBuild& build,
                                               translate::TargetKind kind, std::string& log)
{
  TRY_ASSIGN(ptx::Module module, rewrite_ptx(text, build, log));
  if (!build.entry.empty()) {
    drop_unreached_variables(module);
  }
  translate::TranslateOptions options;
  options.kind = kind;
  options.float_policy = build.float_policy;
  if (kind == translate::TargetKind::amdgpu) {
    options.processor = build.target;
    options.fp8_native = build.target.starts_with("gfx12");
  }
  return translate::translate_module(module, options);
}

Expected<std::vector<std::byte>> build_ptx_code_object(std::string_view text, const PtxBuild& build,
                                                       std::string& log)
{
  TRY_ASSIGN(translate::Translation translation,
             translate_ptx(text, build, translate::TargetKind::amdgpu, log));
  CodegenOptions options;
  options.target = build.target;
  options.optimise = false; // translate_module ran LLVM's pipeline already
  options.label = "ptx build";
  options.work_dir = build.work_dir;
  return codegen_code_object(*translation.module, options, log);
}

std::string llvm_ir_text(const translate::Translation& translation)
{
  std::string text;
  llvm::raw_string_ostream out(text);
  translation.module->print(out, nullptr);
  return text;
}

} // namespace d4r::compiler
