#include "cli/ptx_rewrite.hpp"

#include "cli/code_object_file.hpp"
#include "compiler/passes/registry.hpp"
#include "compiler/ptx/container.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"
#include "compiler/recipe.hpp"
#include "util/digest.hpp"

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <variant>
#include <vector>

namespace d4r::cli {

namespace {

namespace ptx = d4r::compiler::ptx;
namespace passes = d4r::compiler::passes;

// The module's kernels (.entry functions with a body) that the recipe serves: the passes touch
// only those. None is an error, since an empty list would mean "every function" to a pass.
Expected<std::vector<std::string>> served_entries(const compiler::Recipe& recipe,
                                                  const ptx::Module& module,
                                                  const std::string& where)
{
  std::vector<std::string> entries;
  for (const ptx::Item& item : module.items) {
    const ptx::Function* function = std::get_if<ptx::Function>(&item.value);
    if (function != nullptr && function->is_entry && function->body &&
        compiler::recipe_serves(recipe, function->name)) {
      entries.push_back(function->name);
    }
  }
  if (entries.empty()) {
    return make_error(ErrorCode::not_found,
                      where + ": recipe " + recipe.name + " serves none of its entries");
  }
  return entries;
}

Expected<std::string> pick_target(const compiler::Recipe& recipe, const std::string& wanted)
{
  if (wanted.empty()) {
    return recipe.targets.front();
  }
  TRY_ASSIGN(std::string target, validate_target(wanted));
  if (std::ranges::find(recipe.targets, target) == recipe.targets.end()) {
    return make_error(ErrorCode::not_found,
                      "recipe " + recipe.name + ": does not build for target " + target);
  }
  return target;
}

} // namespace

Expected<compiler::Recipe> load_pass_recipe(const std::string& path)
{
  TRY_ASSIGN(std::string text, read_whole_file(path));
  TRY_ASSIGN(compiler::Recipe recipe, compiler::parse_recipe(text, path));
  if (recipe.passes.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "recipe " + path + ": lists no passes (add 'passes = ...')");
  }
  return recipe;
}

Expected<ptx::PtxModule> read_one_ptx_module(const std::string& path,
                                             std::optional<uint64_t> module_hash)
{
  TRY_ASSIGN(std::string bytes, read_whole_file(path));
  TRY_ASSIGN(std::vector<ptx::PtxModule> modules,
             ptx::read_ptx_modules(std::as_bytes(std::span(bytes.data(), bytes.size()))));
  if (module_hash) {
    auto it = std::ranges::find_if(modules, [&module_hash](const ptx::PtxModule& module) {
      return module.fnv1a64 == *module_hash;
    });
    if (it == modules.end()) {
      return make_error(ErrorCode::not_found,
                        path + ": no PTX module " + hash_to_hex(*module_hash));
    }
    return std::move(*it);
  }
  if (modules.size() != 1) {
    return make_error(ErrorCode::invalid_argument,
                      path + ": holds " + std::to_string(modules.size()) +
                          " PTX modules; pick one with --module HASH");
  }
  return std::move(modules.front());
}

Expected<std::string> rewrite_ptx(const PtxRewriteCommand& cmd, std::ostream& log)
{
  TRY_ASSIGN(compiler::Recipe recipe, load_pass_recipe(cmd.recipe_path));
  TRY_ASSIGN(std::string target, pick_target(recipe, cmd.target));
  TRY_ASSIGN(ptx::PtxModule source, read_one_ptx_module(cmd.path, cmd.module_hash));
  std::string where = cmd.path + " (module " + hash_to_hex(source.fnv1a64) + ")";
  Expected<ptx::Module> module = ptx::parse_module(source.text);
  if (!module) {
    return make_error(module.error().code, where + ": " + module.error().message);
  }
  passes::PassOptions options;
  options.target = target;
  TRY_ASSIGN(options.kernels, served_entries(recipe, *module, where));
  for (const std::string& name : recipe.passes) {
    auto params = recipe.pass_parameters.find(name);
    options.parameters = params == recipe.pass_parameters.end()
                             ? std::map<std::string, std::string>()
                             : params->second;
    TRY_ASSIGN(std::unique_ptr<passes::Pass> pass, passes::make_pass(name, options));
    Expected<passes::PassResult> result = pass->run(*module);
    if (!result) {
      return make_error(result.error().code, where + ": " + result.error().message);
    }
    if (result->changed()) {
      log << name << ": " << result->rewrites << (result->rewrites == 1 ? " rewrite" : " rewrites")
          << "\n";
    } else {
      log << name << ": unchanged\n";
    }
  }
  return ptx::print_module(*module);
}

} // namespace d4r::cli
