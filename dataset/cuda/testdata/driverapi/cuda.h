// A stand-in for the CUDA driver API's cuda.h, for testing the GPU harness's driver-API path
// (gpu_harness.h under SMART_DRIVER_API) on the CPU: the few types and functions it uses, with
// the real declarations' signatures (CUDA 12 and 13), implemented over the emulation's modules
// (shared objects loaded with dlopen, launched through their smart_emu_unit_launch). Include it
// after emulation.h.
#ifndef SMART_FAKE_CUDA_H
#define SMART_FAKE_CUDA_H
#include <dlfcn.h>

#define CUDAAPI

typedef enum cudaError_enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_FILE_NOT_FOUND = 301, CUDA_ERROR_NOT_FOUND = 500 } CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef enum CUfunction_attribute_enum {
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
} CUfunction_attribute;

struct CUfunc_st {
  void (*kernel)(const void *, void *);
  void (*launch)(void (*)(const void *, void *), dim3, dim3, size_t, const void *, void *);
  unsigned name_sum;  // the sum of the kernel name's bytes, from which the fake attributes come
};

inline CUresult CUDAAPI cuInit(unsigned int) { return CUDA_SUCCESS; }
inline CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}
inline CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice) {
  static int ctx;
  *pctx = reinterpret_cast<CUcontext>(&ctx);
  return CUDA_SUCCESS;
}
inline CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) { return cuDevicePrimaryCtxRetain(pctx, 0); }
inline CUresult CUDAAPI cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

inline CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname) {
  void *h = dlopen(fname, RTLD_NOW | RTLD_LOCAL);
  if (!h) return CUDA_ERROR_FILE_NOT_FOUND;
  *module = static_cast<CUmodule>(h);
  return CUDA_SUCCESS;
}

inline CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  void *k = dlsym(hmod, name), *l = dlsym(hmod, "smart_emu_unit_launch");
  if (!k || !l) return CUDA_ERROR_NOT_FOUND;
  unsigned sum = 0;
  for (const char *c = name; *c; ++c) sum += (unsigned char)*c;
  *hfunc = new CUfunc_st{reinterpret_cast<void (*)(const void *, void *)>(k),
                         reinterpret_cast<void (*)(void (*)(const void *, void *), dim3, dim3, size_t, const void *, void *)>(l), sum};
  return CUDA_SUCCESS;
}

// The attributes a compiler would give, made up from the kernel's name (fakeCompiled in
// runner_test.go computes them too): kernels of one variant differ, and of two kernels whose
// names differ in one digit, one has more registers and the other more local memory.
inline CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction f) {
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *pi = 16 + (int)(f->name_sum % 64);
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *pi = 8 * (6 - (int)(f->name_sum % 7));
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}
inline CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }

inline CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                       unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                       unsigned int sharedMemBytes, CUstream, void **kernelParams, void **extra) {
  if (extra) return CUDA_ERROR_INVALID_VALUE;
  // The kernels take (const real *in, real *out): kernelParams point at the two pointers.
  f->launch(f->kernel, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
            *static_cast<const void *const *>(kernelParams[0]), *static_cast<void *const *>(kernelParams[1]));
  return CUDA_SUCCESS;
}

inline CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
  *pStr = error == CUDA_ERROR_NOT_FOUND ? "named symbol not found" : "fake driver error";
  return CUDA_SUCCESS;
}
#endif
