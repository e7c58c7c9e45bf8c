// Prelude for compiling smart's generated kernels to PTX with clang without the CUDA toolkit:
//   clang-14 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -S -include this
// It declares what the kernels and their host launch functions use; clang's own header supplies
// threadIdx, blockIdx, blockDim and gridDim.
#include <stddef.h>
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
template <class T> cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value);
// The launch syntax <<<...>>> lowers to one of these, depending on the CUDA version clang assumes.
int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
#include "__clang_cuda_builtin_vars.h"
// __syncthreads is a clang builtin for NVPTX; __ldg is a load through the read-only data cache.
__device__ __forceinline__ double __ldg(const double *p) { return __nvvm_ldg_d(p); }
__device__ __forceinline__ float __ldg(const float *p) { return __nvvm_ldg_f(p); }
