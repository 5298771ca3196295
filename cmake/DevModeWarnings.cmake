# Warnings for our own code, as errors: the build stays free of warnings (STYLE.md, rule 17).
# -Wnull-dereference is left out: g++ 12 reports false positives inside libstdc++ at -O2.
# Applied per target with d4r_warnings(target) so that generated protobuf code is left alone.
set(D4R_WARNING_FLAGS
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough -Wswitch -Werror=switch
  -Werror)

function(d4r_warnings target)
  target_compile_options(${target} PRIVATE ${D4R_WARNING_FLAGS})
endfunction()
