// Empty on purpose (our own file): clang 19's CUDA wrapper includes texture_fetch_functions.h, which
// CUDA 13 no longer ships (texture references were removed). The texture-object functions clang
// needs come from texture_indirect_functions.h and clang's own __clang_cuda_texture_intrinsics.h.
#pragma once
