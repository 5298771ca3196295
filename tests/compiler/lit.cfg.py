# lit configuration of tests/compiler (STYLE rule 16): each <pass>/*.ptx file is a test whose
# `// RUN:` lines run `d4r-kernel ptx rewrite` or `ptx translate` on the file itself and pipe the
# result into LLVM's FileCheck, which matches the file's `// CHECK:` lines. lit and FileCheck come
# from Debian's llvm-19-tools. CTest runs this through tests/compiler/lit.cmake, which passes the
# paths below as --param.
import os

import lit.formats

config.name = "d4r-compiler"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx"]
config.test_source_root = os.path.dirname(__file__)

d4r_kernel = lit_config.params.get("d4r_kernel")
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-19/bin")
exec_root = lit_config.params.get("exec_root")
if not d4r_kernel or not exec_root:
    lit_config.fatal("run through CTest, or pass --param d4r_kernel=PATH --param exec_root=DIR")
config.test_exec_root = exec_root
config.substitutions.append(("%d4r-kernel", d4r_kernel))
# The PTX printer keeps comments (so that a module round-trips), which would put these files'
# CHECK lines into the output they check: `| %strip-comments |` drops comment lines first.
config.substitutions.append(("%strip-comments", r"sed -e '/^[[:space:]]*\/\//d'"))
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", "")])
