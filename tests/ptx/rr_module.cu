// A module shaped like a denoiser library's: a cuda_dldn_engine_* entry and a dl4rt_input_kernel of
// its own, so the tests can check that this module's hash authorises only cuda_dldn_engine_* names.
// Regenerate the PTX with tests/ptx/regenerate.sh.
extern "C" __global__ void cuda_dldn_engine_test_kernel(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 0.5f;
    }
}

extern "C" __global__ void dl4rt_input_kernel(const float* in, float* out)
{
    out[threadIdx.x] = fminf(in[threadIdx.x], 1.0f);
}
