// GPU benchmark harness for smart's generated kernels (compiled by nvcc with -lcuda). One process
// serves one stencil: it fills the grid with random data, computes the result of a plain
// reference kernel and then checks and times variants, loading their compiled kernels (cubins)
// through the driver API as they come, so the context, the buffers and the reference are made
// once per stencil rather than once per batch of variants.
//
// Commands come on stdin, one a line; answers go to stdout, one a line:
//   CASE <bytes of real> <dims> <nx> <ny> <nz> <r> <steps> <tol> <seed> <npts> {<dx> <dy> <dz> <c>}
//     -> COPYBW <GB/s>      device-to-device copy, bytes read plus written
//        READY              or FAIL <why>, and the process ends
//   LOAD <path>             -> LOADED <k> | LOADFAIL <why>
//   RUN <tag> <k> <reps> <stop> <near> <sample ms> <launches> {<kernel> <gx> <gy> <gz> <bx> <by> <bz> <shared bytes> <steps> <count>}
//     -> BEGIN <tag>
//        COMPILED <tag> <registers per thread> <local memory bytes per thread>
//                           what the driver reports of the loaded kernels, the largest of each over
//                           the launches; only on a GPU (the emulation knows no such thing)
//        RAN <tag> after each run (the caller's hang watchdog covers one run)
//        RESULT <tag> ok <max rel. error> <runs> <ms of sample 1> ... <ms of sample reps>
//        RESULT <tag> slow <max rel. error> <ms of the checked run>
//        RESULT <tag> stopped <ms of the first launch> <its steps>
//        RESULT <tag> wrong <max rel. error> <unwritten points> <the first wrong point, in words>
//        RESULT <tag> overflow <why>  the stencil's reference leaves the element type's range, or
//                           the magnitude of its terms float64's: nothing to check a run by, so
//                           the variant is not run
//        RESULT <tag> launch <error>
//        RESULT <tag> lost <error>   an error that leaves the context unusable: the process ends
// A run applies the stencil's steps (the launches in order, the buffers swapped after each); ms
// are those of a whole run, the caller divides by the steps.
//
// The measuring protocol of a variant, with stop and near in ms per step (0: unknown):
//   1. The checked run: the first launch is timed on its own; when it is over stop per step and
//      launches remain, the variant is stopped there, unchecked (its time says "slow").
//   2. The rest of the run; its result is compared with the reference (poisoned output first).
//   3. A checked run over stop per step is the variant's only timed run ("slow").
//   4. Otherwise reps samples. Within near of the stencil's best, a sample is the mean of as many
//      runs as fill sample ms (short runs are noisy); beyond it, one run.
//
// Under SMART_EMULATION (g++ with emulation.h and emulation_runtime.h) the same code runs on the
// host and modules are shared objects (dlopen) whose kernels launch through the module's own
// smart_emu_unit_launch. SMART_DRIVER_API selects the driver-API modules under the emulation, for
// type-checking them against a declaration of the driver API without a GPU.
#ifndef SMART_EMULATION
#include <cuda.h>
#include <cuda_runtime.h>
#define SMART_DRIVER_API 1
#elif defined(SMART_DRIVER_API)
#include <cuda.h>
#else
#include <dlfcn.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace smart_bench {

struct Point {
  int dx, dy, dz;
  double c;
};

struct Case {
  int real_bytes, dims, nx, ny, nz, r, steps;
  double tol;
  uint64_t seed;
  std::vector<Point> pts;
};

__device__ __forceinline__ double uniform_at(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return 1.0 + (double)(z >> 11) * 0x1p-53;
}

template <class T> __global__ void fill(T *a, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = (T)uniform_at(seed, i);
}

// widen copies the initial grid into float64, where the magnitude of the terms is carried.
template <class T> __global__ void widen(const T *a, double *b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    b[i] = (double)a[i];
}

// reference_step is the plain stencil: one thread per point, every access from global memory,
// accumulated in double; points within r of the edge keep their value. With magnitude it sums
// |c| |value| instead: from |initial grid|, steps of it give the magnitude of the terms summed,
// the scale of the rounding errors of any order of summing, which cancellation (coefficients of
// both signs) leaves far above the result. The reference is stored in the element type T, as a
// kernel's steps are; the magnitude in double (T = double), as the kernel never computes it and
// it may exceed float32 where the results do not.
template <class T>
__global__ void reference_step(const T *a, T *b, int nx, int ny, int nz, int r, int dims, const Point *pts, int npts,
                               bool magnitude) {
  const size_t n = (size_t)nx * ny * nz;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int x = (int)(i % nx), y = (int)((i / nx) % ny), z = (int)(i / ((size_t)nx * ny));
    const int rz = dims == 3 ? r : 0;
    if (x < r || x >= nx - r || y < r || y >= ny - r || z < rz || z >= nz - rz) {
      b[i] = a[i];
      continue;
    }
    double v = 0;
    for (int p = 0; p < npts; ++p) {
      const double t = pts[p].c * (double)a[(long long)i + pts[p].dx + (long long)nx * pts[p].dy + (long long)nx * ny * pts[p].dz];
      v += magnitude ? fabs(t) : t;
    }
    b[i] = (T)v;
  }
}

// poison sets the interior of a buffer to NaN, so a point the first launch fails to write shows.
template <class T> __global__ void poison(T *b, int nx, int ny, int nz, int r, int dims) {
  const size_t n = (size_t)nx * ny * nz;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int x = (int)(i % nx), y = (int)((i / nx) % ny), z = (int)(i / ((size_t)nx * ny));
    const int rz = dims == 3 ? r : 0;
    if (x >= r && x < nx - r && y >= r && y < ny - r && z >= rz && z < nz - rz) b[i] = (T)NAN;
  }
}

// bounded reports whether v is finite (NaN is not).
__device__ __forceinline__ bool bounded(double v) { return fabs(v) <= 0x1.fffffffffffffp+1023; }

// unbounded finds the first point whose reference or magnitude is not finite: *first, which
// starts as the largest index, ends as the lowest such index.
template <class T> __global__ void unbounded(const T *ref, const double *mag, size_t n, unsigned long long *first) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    if (!bounded((double)ref[i]) || !bounded(mag[i])) atomicMin(first, (unsigned long long)i);
}

// Compare's results, in a device array: the largest error's bits, the NaN (unwritten) points,
// the points wrong and the first of them (which starts as the largest index).
enum { kMaxBits, kNaNs, kWrong, kFirstWrong, kStats };

// compare finds the largest error of out against ref, relative to the magnitude of the terms
// summed (mag; below T's normal range rounding is absolute, as if it were the smallest normal
// number), counts NaN (unwritten) points, and counts and locates the points beyond tol. The
// reference and the magnitude are finite (setup checks), so an output that is not finite is an
// error that is not either: wrong.
template <class T>
__global__ void compare(const T *out, const T *ref, const double *mag, size_t n, double tol, unsigned long long *stats) {
  const double tiny = sizeof(T) == 4 ? 0x1p-126 : 0x1p-1022;
  double m = 0;
  unsigned long long nans = 0, wrong = 0, first = ~0ull;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const double o = (double)out[i], f = (double)ref[i];
    const double d = fabs(o - f) / fmax(mag[i], tiny);
    if (!(d <= tol)) {  // NaN included
      ++wrong;
      first = i < first ? i : first;
    }
    if (o != o)
      ++nans;
    else
      m = fmax(m, d);
  }
  // Non-negative doubles order like their bit patterns.
  atomicMax(stats + kMaxBits, (unsigned long long)__double_as_longlong(m));
  if (nans) atomicAdd(stats + kNaNs, nans);
  if (wrong) {
    atomicAdd(stats + kWrong, wrong);
    atomicMin(stats + kFirstWrong, first);
  }
}

inline void say(const std::string &line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

// One launch of a variant's run: a kernel of a loaded module and its configuration.
struct Launch {
  std::string kernel;
  unsigned grid[3], block[3], shared;
  int steps, count;
#ifdef SMART_DRIVER_API
  CUfunction fn = nullptr;
#else
  void (*fn)(const void *, void *) = nullptr;
#endif
  // What the compiler made of the kernel, as the driver reports it; -1 where unknown.
  int regs = -1, local_bytes = -1;
};

// Modules hold the loaded units of compiled kernels. Errors are strings; empty means success.
#ifdef SMART_DRIVER_API
inline std::string driver_error(CUresult e, const char *what) {
  const char *s = nullptr;
  cuGetErrorString(e, &s);
  return std::string(what) + ": " + (s ? s : "unknown driver error");
}

struct Modules {
  std::vector<CUmodule> loaded;

  size_t size() const { return loaded.size(); }

  std::string load(const std::string &path, int *k) {
    CUmodule m;
    const CUresult e = cuModuleLoad(&m, path.c_str());
    if (e != CUDA_SUCCESS) return driver_error(e, "cuModuleLoad");
    loaded.push_back(m);
    *k = (int)loaded.size() - 1;
    return "";
  }

  std::string resolve(int k, Launch &l) {
    CUresult e = cuModuleGetFunction(&l.fn, loaded[k], l.kernel.c_str());
    if (e != CUDA_SUCCESS) return driver_error(e, "cuModuleGetFunction");
    // Asking for an attribute also loads the function under lazy loading, so that its first
    // timed launch does not pay for it.
    e = cuFuncGetAttribute(&l.regs, CU_FUNC_ATTRIBUTE_NUM_REGS, l.fn);
    if (e != CUDA_SUCCESS) return driver_error(e, "cuFuncGetAttribute(NUM_REGS)");
    e = cuFuncGetAttribute(&l.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, l.fn);
    if (e != CUDA_SUCCESS) return driver_error(e, "cuFuncGetAttribute(LOCAL_SIZE_BYTES)");
    if (l.shared > 48 * 1024) {
      e = cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l.shared);
      if (e != CUDA_SUCCESS) return driver_error(e, "cuFuncSetAttribute");
    }
    return "";
  }

  std::string launch(int, const Launch &l, const void *in, void *out, cudaStream_t stream) {
    void *args[] = {&in, &out};
    const CUresult e = cuLaunchKernel(l.fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared,
                                      (CUstream)stream, args, nullptr);
    return e == CUDA_SUCCESS ? "" : driver_error(e, "cuLaunchKernel");
  }
};
#else
typedef void (*emu_kernel)(const void *, void *);
typedef void (*emu_launcher)(emu_kernel, dim3, dim3, size_t, const void *, void *);

struct Modules {
  std::vector<void *> handles;
  std::vector<emu_launcher> launchers;

  size_t size() const { return handles.size(); }

  std::string load(const std::string &path, int *k) {
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) return std::string("dlopen: ") + dlerror();
    auto l = (emu_launcher)dlsym(h, "smart_emu_unit_launch");
    if (!l) return "dlsym: the module has no smart_emu_unit_launch";
    handles.push_back(h);
    launchers.push_back(l);
    *k = (int)handles.size() - 1;
    return "";
  }

  std::string resolve(int k, Launch &l) {
    l.fn = (emu_kernel)dlsym(handles[k], l.kernel.c_str());
    return l.fn ? "" : "no kernel " + l.kernel + " in the module";
  }

  std::string launch(int k, const Launch &l, const void *in, void *out, cudaStream_t) {
    launchers[k](l.fn, dim3(l.grid[0], l.grid[1], l.grid[2]), dim3(l.block[0], l.block[1], l.block[2]), l.shared, in, out);
    return "";
  }
};
#endif

// Errors after which the context is unusable: the process ends and the caller starts another.
inline bool sticky(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress ||
         e == cudaErrorIllegalInstruction || e == cudaErrorHardwareStackError || e == cudaErrorLaunchTimeout ||
         e == cudaErrorUnknown;
}

template <class T> struct Bench {
  const Case &c;
  Modules &mods;
  size_t n;
  T *init = nullptr, *a = nullptr, *b = nullptr, *ref = nullptr;
  double *mag = nullptr;
  Point *dpts = nullptr;
  unsigned long long *stats = nullptr;
  cudaStream_t stream;
  cudaEvent_t start, first, stop;
  bool lost = false;
  // unverifiable, when set, says why no run can be checked: the reference or the magnitude of
  // its terms is not finite at a point.
  std::string unverifiable;
  // Grid-stride helper kernels: enough blocks to fill a GPU; a few threads under emulation.
#ifdef SMART_EMULATION
  static constexpr int blocks = 2, threads = 8;
#else
  static constexpr int blocks = 4096, threads = 256;
#endif

  Bench(const Case &cs, Modules &m) : c(cs), mods(m) { n = (size_t)c.nx * c.ny * c.nz; }

  static std::string err(cudaError_t e, const char *what) { return std::string(what) + ": " + cudaGetErrorString(e); }

  // setup allocates, fills and computes the reference; a non-empty result says why it cannot.
  std::string setup() {
    cudaError_t e;
    if ((e = cudaStreamCreate(&stream)) != cudaSuccess) return err(e, "cudaStreamCreate");
    cudaEventCreate(&start);
    cudaEventCreate(&first);
    cudaEventCreate(&stop);
    for (T **p : {&init, &a, &b, &ref})
      if ((e = cudaMalloc(p, n * sizeof(T))) != cudaSuccess) return err(e, "cudaMalloc");
    if ((e = cudaMalloc(&mag, n * sizeof(double))) != cudaSuccess) return err(e, "cudaMalloc");
    if ((e = cudaMalloc(&dpts, c.pts.size() * sizeof(Point))) != cudaSuccess) return err(e, "cudaMalloc");
    if ((e = cudaMalloc(&stats, kStats * sizeof(unsigned long long))) != cudaSuccess) return err(e, "cudaMalloc");
    cudaMemcpy(dpts, c.pts.data(), c.pts.size() * sizeof(Point), cudaMemcpyHostToDevice);
    SMART_LAUNCH(fill<T>, dim3(blocks), dim3(threads), 0, stream, init, n, c.seed);
    copy_bandwidth();
    // The reference: a and b both start as the initial grid.
    reset();
    T *x = a, *y = b;
    for (int t = 0; t < c.steps; ++t) {
      SMART_LAUNCH(reference_step<T>, dim3(blocks), dim3(threads), 0, stream, x, y, c.nx, c.ny, c.nz, c.r, c.dims, dpts,
                   (int)c.pts.size(), false);
      T *s = x;
      x = y;
      y = s;
    }
    cudaMemcpyAsync(ref, x, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    // The magnitudes, from the initial grid (positive: its own magnitude), in mag and a
    // scratch grid of doubles, freed once they are done.
    double *scratch = nullptr;
    if ((e = cudaMalloc(&scratch, n * sizeof(double))) != cudaSuccess) return err(e, "cudaMalloc");
    SMART_LAUNCH(widen<T>, dim3(blocks), dim3(threads), 0, stream, init, mag, n);
    double *u = mag, *v = scratch;
    for (int t = 0; t < c.steps; ++t) {
      SMART_LAUNCH(reference_step<double>, dim3(blocks), dim3(threads), 0, stream, u, v, c.nx, c.ny, c.nz, c.r, c.dims,
                   dpts, (int)c.pts.size(), true);
      double *s = u;
      u = v;
      v = s;
    }
    if (u != mag) cudaMemcpyAsync(mag, u, n * sizeof(double), cudaMemcpyDeviceToDevice, stream);
    if ((e = cudaStreamSynchronize(stream)) != cudaSuccess) return err(e, "reference");
    if ((e = cudaGetLastError()) != cudaSuccess) return err(e, "reference");
    cudaFree(scratch);
    return check_reference();
  }

  // check_reference sets unverifiable where a point's reference or magnitude is not finite: a
  // stencil whose values outgrow T within the steps has no result a kernel could match, and one
  // whose magnitudes outgrow double no scale to measure errors by (any error divided by an
  // infinite magnitude is 0, so a wrong kernel would pass).
  std::string check_reference() {
    unsigned long long first = 0;
    cudaMemsetAsync(stats, 0xff, sizeof first, stream);
    SMART_LAUNCH(unbounded<T>, dim3(blocks), dim3(threads), 0, stream, ref, mag, n, stats);
    cudaMemcpyAsync(&first, stats, sizeof first, cudaMemcpyDeviceToHost, stream);
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) return err(e, "reference check");
    if (first >= n) return "";
    T r;
    double m;
    cudaMemcpy(&r, ref + first, sizeof r, cudaMemcpyDeviceToHost);
    cudaMemcpy(&m, mag + first, sizeof m, cudaMemcpyDeviceToHost);
    const char *type = sizeof(T) == 4 ? "float32" : "float64";
    const double most = sizeof(T) == 4 ? 0x1.fffffep+127 : 0x1.fffffffffffffp+1023;
    char line[320];
    if (std::isnan((double)r))
      std::snprintf(line, sizeof line,
                    "the stencil overflows %s within %d steps: its reference at point %s is NaN (overflows of both signs summed), so no kernel can match it",
                    type, c.steps, point(first).c_str());
    else if (!std::isfinite((double)r))
      std::snprintf(line, sizeof line,
                    "the stencil overflows %s within %d steps: its reference at point %s is %.17g, beyond the largest %s (%.17g), so no kernel can match it",
                    type, c.steps, point(first).c_str(), (double)r, type, most);
    else
      std::snprintf(line, sizeof line,
                    "the stencil overflows float64 within %d steps: the magnitude of the terms summed at point %s is %g (its reference %.17g), so no error can be measured against it",
                    c.steps, point(first).c_str(), m, (double)r);
    unverifiable = line;
    return "";
  }

  // point writes grid index i as (x,y,z).
  std::string point(size_t i) const {
    return "(" + std::to_string(i % c.nx) + "," + std::to_string(i / c.nx % c.ny) + "," +
           std::to_string(i / ((size_t)c.nx * c.ny)) + ")";
  }

  // copy_bandwidth times a device-to-device copy of the grid, counting bytes read and written.
  void copy_bandwidth() {
    float best = 0;
    for (int i = 0; i < 6; ++i) {
      cudaEventRecord(start, stream);
      cudaMemcpyAsync(a, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
      cudaEventRecord(stop, stream);
      cudaEventSynchronize(stop);
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      if (i > 0 && (best == 0 || t < best)) best = t;
    }
    char line[64];
    std::snprintf(line, sizeof line, "COPYBW %.3f", 2.0 * n * sizeof(T) / (best * 1e-3) / 1e9);
    say(line);
  }

  void reset() {
    cudaMemcpyAsync(a, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    cudaMemcpyAsync(b, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
  }

  // launches enqueues launches [from, to) of ls, swapping the buffers after each; the buffer
  // holding the latest result ends in *out. A non-empty result is a launch error.
  std::string launches(int k, const std::vector<Launch> &ls, size_t from, size_t to, T **in, T **out) {
    size_t i = 0;
    for (const Launch &l : ls)
      for (int j = 0; j < l.count; ++j, ++i) {
        if (i < from || i >= to) continue;
        std::string e = mods.launch(k, l, *in, *out, stream);
        if (!e.empty()) return e;
        T *s = *in;
        *in = *out;
        *out = s;
      }
    return "";
  }

  // timed runs the whole of ls once from the initial grid and returns its ms, or a negative
  // number after reporting an error.
  float timed(int tag, int k, const std::vector<Launch> &ls, size_t total) {
    reset();
    T *x = a, *y = b;
    cudaEventRecord(start, stream);
    std::string e = launches(k, ls, 0, total, &x, &y);
    cudaEventRecord(stop, stream);
    cudaError_t ce = cudaEventSynchronize(stop);
    if (e.empty() && ce != cudaSuccess) e = err(ce, "timed run");
    if (!e.empty()) return fail(tag, e, ce);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ran(tag);
    return t;
  }

  // fail reports a launch error; after one that leaves the context unusable ("lost") the
  // process ends.
  float fail(int tag, const std::string &e, cudaError_t ce) {
    lost = sticky(ce);
    say("RESULT " + std::to_string(tag) + (lost ? " lost " : " launch ") + e);
    return -1;
  }

  void variant(int tag, int k, std::vector<Launch> &ls, int reps, double stop_ms, double near_ms, double sample_ms) {
    say("BEGIN " + std::to_string(tag));
    for (Launch &l : ls) {
      std::string e = mods.resolve(k, l);
      if (!e.empty()) {
        fail(tag, e, cudaSuccess);
        return;
      }
    }
    compiled(tag, ls);
    if (!unverifiable.empty()) {
      say("RESULT " + std::to_string(tag) + " overflow " + unverifiable);
      return;
    }
    size_t total = 0;
    int first_steps = ls.empty() ? 0 : ls[0].steps;
    for (const Launch &l : ls) total += l.count;
    // 1. The checked run, its first launch timed on its own.
    reset();
    SMART_LAUNCH(poison<T>, dim3(blocks), dim3(threads), 0, stream, b, c.nx, c.ny, c.nz, c.r, c.dims);
    T *x = a, *y = b;
    cudaEventRecord(start, stream);
    std::string e = launches(k, ls, 0, 1, &x, &y);
    cudaEventRecord(first, stream);
    cudaError_t ce = cudaEventSynchronize(first);
    if (e.empty() && ce == cudaSuccess) ce = cudaGetLastError();
    if (e.empty() && ce != cudaSuccess) e = err(ce, "run");
    if (!e.empty()) {
      fail(tag, e, ce);
      return;
    }
    float t_first = 0;
    cudaEventElapsedTime(&t_first, start, first);
    if (stop_ms > 0 && total > 1 && t_first > stop_ms * first_steps) {
      char line[96];
      std::snprintf(line, sizeof line, "RESULT %d stopped %.6f %d", tag, t_first, first_steps);
      say(line);
      return;
    }
    // 2. The rest of it, and the check.
    e = launches(k, ls, 1, total, &x, &y);
    cudaEventRecord(stop, stream);
    ce = cudaEventSynchronize(stop);
    if (e.empty() && ce == cudaSuccess) ce = cudaGetLastError();
    if (e.empty() && ce != cudaSuccess) e = err(ce, "run");
    if (!e.empty()) {
      fail(tag, e, ce);
      return;
    }
    float t_check = 0;
    cudaEventElapsedTime(&t_check, start, stop);
    ran(tag);
    T *out = x;  // the buffer the last launch wrote
    cudaMemsetAsync(stats, 0, kFirstWrong * sizeof(unsigned long long), stream);
    cudaMemsetAsync(stats + kFirstWrong, 0xff, sizeof(unsigned long long), stream);
    SMART_LAUNCH(compare<T>, dim3(blocks), dim3(threads), 0, stream, out, ref, mag, n, c.tol, stats);
    unsigned long long h[kStats];
    cudaMemcpyAsync(h, stats, sizeof h, cudaMemcpyDeviceToHost, stream);
    if ((ce = cudaStreamSynchronize(stream)) != cudaSuccess) {
      fail(tag, err(ce, "compare"), ce);
      return;
    }
    double maxrel;
    std::memcpy(&maxrel, &h[kMaxBits], sizeof maxrel);
    char line[320];
    if (h[kWrong] > 0) {
      wrong(tag, maxrel, h, out);
      return;
    }
    // 3. Slow: the checked run is its only timed run.
    if (stop_ms > 0 && t_check > stop_ms * c.steps) {
      std::snprintf(line, sizeof line, "RESULT %d slow %.3e %.6f", tag, maxrel, t_check);
      say(line);
      return;
    }
    // 4. Samples.
    int per = 1;
    if ((near_ms <= 0 || t_check <= near_ms * c.steps) && t_check > 0) per = (int)std::ceil(sample_ms / t_check);
    per = per < 1 ? 1 : per > 1000 ? 1000 : per;
    std::ostringstream res;
    char num[32];
    std::snprintf(num, sizeof num, "%.3e", maxrel);
    res << "RESULT " << tag << " ok " << num << " " << reps * per;
    for (int i = 0; i < reps; ++i) {
      double sum = 0;
      for (int j = 0; j < per; ++j) {
        float t = timed(tag, k, ls, total);
        if (t < 0) return;
        sum += t;
      }
      std::snprintf(num, sizeof num, " %.6f", sum / per);
      res << num;
    }
    say(res.str());
  }

  // wrong reports a run whose output out fails the check (h, compare's results), naming the
  // first wrong point, its value and the reference's.
  void wrong(int tag, double maxrel, const unsigned long long *h, const T *out) {
    const size_t i = h[kFirstWrong];
    T o, r;
    cudaMemcpy(&o, out + i, sizeof o, cudaMemcpyDeviceToHost);
    cudaMemcpy(&r, ref + i, sizeof r, cudaMemcpyDeviceToHost);
    char num[32];
    const char *value = "NaN (never written, or computed from unwritten data or from an overflow)";
    if (!std::isnan((double)o)) {
      std::snprintf(num, sizeof num, "%.17g", (double)o);
      value = num;
    }
    char line[320];
    std::snprintf(line, sizeof line, "RESULT %d wrong %.3e %llu point %s is %s, want %.17g; %llu of %zu points wrong", tag,
                  maxrel, h[kNaNs], point(i).c_str(), value, (double)r, h[kWrong], n);
    say(line);
  }

  // compiled reports the largest registers and local memory per thread over the launches, when
  // the modules know them for every launch.
  static void compiled(int tag, const std::vector<Launch> &ls) {
    int regs = -1, local_bytes = -1;
    for (const Launch &l : ls) {
      if (l.regs < 0 || l.local_bytes < 0) return;
      regs = l.regs > regs ? l.regs : regs;
      local_bytes = l.local_bytes > local_bytes ? l.local_bytes : local_bytes;
    }
    if (regs < 0) return;
    char line[64];
    std::snprintf(line, sizeof line, "COMPILED %d %d %d", tag, regs, local_bytes);
    say(line);
  }

  // ran tells the caller a run finished, so a slow variant is not taken for a hung one.
  static void ran(int tag) { say("RAN " + std::to_string(tag)); }
};

// serve runs one stencil's benchmark: the commands after CASE.
template <class T> int serve(const Case &c) {
  Modules mods;
  Bench<T> bench(c, mods);
  std::string e = bench.setup();
  if (!e.empty()) {
    say("FAIL " + e);
    return 3;
  }
  say("READY");
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string cmd;
    in >> cmd;
    if (cmd == "LOAD") {
      std::string path;
      std::getline(in >> std::ws, path);
      int k = -1;
      std::string e = mods.load(path, &k);
      say(e.empty() ? "LOADED " + std::to_string(k) : "LOADFAIL " + e);
    } else if (cmd == "RUN") {
      int tag, k, reps, nl;
      double stop_ms, near_ms, sample_ms;
      in >> tag >> k >> reps >> stop_ms >> near_ms >> sample_ms >> nl;
      std::vector<Launch> ls(nl > 0 ? nl : 0);
      for (Launch &l : ls)
        in >> l.kernel >> l.grid[0] >> l.grid[1] >> l.grid[2] >> l.block[0] >> l.block[1] >> l.block[2] >> l.shared >> l.steps >> l.count;
      if (!in || k < 0 || k >= (int)mods.size() || reps < 1) {
        say("ERROR malformed RUN: " + line);
        return 2;
      }
      bench.variant(tag, k, ls, reps, stop_ms, near_ms, sample_ms);
      if (bench.lost) return 4;
    } else if (!cmd.empty()) {
      say("ERROR unknown command: " + cmd);
      return 2;
    }
  }
  return 0;
}

// main_loop reads CASE and serves the stencil in its element type.
inline int main_loop() {
  std::string line;
  if (!std::getline(std::cin, line)) return 2;
  std::istringstream in(line);
  std::string cmd;
  Case c{};
  size_t npts = 0;
  in >> cmd >> c.real_bytes >> c.dims >> c.nx >> c.ny >> c.nz >> c.r >> c.steps;
  std::string tol;
  in >> tol >> c.seed >> npts;
  c.tol = std::strtod(tol.c_str(), nullptr);
  for (size_t i = 0; i < npts && in; ++i) {
    Point p;
    std::string coef;
    in >> p.dx >> p.dy >> p.dz >> coef;
    p.c = std::strtod(coef.c_str(), nullptr);
    c.pts.push_back(p);
  }
  if (cmd != "CASE" || !in || c.pts.size() != npts || npts == 0 || (c.real_bytes != 4 && c.real_bytes != 8)) {
    say("FAIL malformed CASE: " + line);
    return 2;
  }
#ifdef SMART_DRIVER_API
  // The runtime makes the device's primary context current; the driver API loads into it.
  cudaFree(nullptr);
  CUcontext ctx = nullptr;
  if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
    CUdevice dev;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
      say("FAIL no CUDA context for the driver API");
      return 3;
    }
  }
#endif
  return c.real_bytes == 4 ? serve<float>(c) : serve<double>(c);
}

}  // namespace smart_bench
