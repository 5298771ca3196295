// A module shaped like an upscaler library's: several entries in one PTX module, one of them
// (dl4rt_input_kernel) with the same name as an entry of rr_module.cu. Our own code: the kernels only
// move numbers so that the PTX has the usual shape of a DLSS texture module.
// Regenerate the PTX with tests/ptx/regenerate.sh.
extern "C" __global__ void d4r_test_layer(const float* in, float* out, unsigned long long weights, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0f + static_cast<float>(weights & 7);
    }
}

extern "C" __global__ void d4r_test_simple(float* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = roundf(data[i]);
    }
}

extern "C" __global__ void rrlite_enc1_4x4(const float* in, float* out)
{
    __shared__ float tile[128];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[127 - threadIdx.x];
}

extern "C" __global__ void rrlite_enc2_4x4(const float* in, float* out)
{
    out[threadIdx.x] = in[threadIdx.x] + in[threadIdx.x ^ 1];
}

extern "C" __global__ void dl4rt_input_kernel(const float* in, float* out)
{
    out[threadIdx.x] = fmaxf(in[threadIdx.x], 0.0f);
}
