// Empty on purpose: bench/hip/cuda_shim.h (passed with -include) declares what the corpus
// sources use from <cuda_bf16.h>. Debian ships no CUDA or HIP headers.
#pragma once
