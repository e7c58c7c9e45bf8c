// GPU benchmark harness for smart's generated kernels (compiled by nvcc). For each variant of one
// stencil it fills the grid with random data, runs the variant once and compares its result with
// a plain reference kernel, then times repeated runs with CUDA events. It prints
//   COPYBW <GB/s>                          device-to-device copy, bytes read plus written
//   BEGIN <id>
//   RUN <id>                               after each run: the caller's hang watchdog covers one run
//   RESULT <id> ok <max relative error> <ms of run 1> <ms of run 2> ...   (reps runs, 2 if slow)
//   RESULT <id> wrong <max relative error> <unwritten points>
//   RESULT <id> launch <error>
// A run applies the stencil's STEPS time steps; the caller divides by STEPS. Under SMART_EMULATION
// (g++ with emulation.h and emulation_runtime.h) the same code runs on the host, for tests.
#ifndef SMART_EMULATION
#include <cuda_runtime.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace smart_bench {

struct Point {
  int dx, dy, dz;
  double c;
};

struct Case {
  int dims, nx, ny, nz, r, steps;
  const Point *pts;
  int npts;
  double tol;
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

// reference_step is the plain stencil: one thread per point, every access from global memory,
// accumulated in double; points within r of the edge keep their value.
template <class T>
__global__ void reference_step(const T *a, T *b, int nx, int ny, int nz, int r, int dims, const Point *pts, int npts) {
  const size_t n = (size_t)nx * ny * nz;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int x = (int)(i % nx), y = (int)((i / nx) % ny), z = (int)(i / ((size_t)nx * ny));
    const int rz = dims == 3 ? r : 0;
    if (x < r || x >= nx - r || y < r || y >= ny - r || z < rz || z >= nz - rz) {
      b[i] = a[i];
      continue;
    }
    double v = 0;
    for (int p = 0; p < npts; ++p)
      v += pts[p].c * (double)a[(long long)i + pts[p].dx + (long long)nx * pts[p].dy + (long long)nx * ny * pts[p].dz];
    b[i] = (T)v;
  }
}

// compare finds the largest relative error of out against ref and counts NaN (unwritten) points.
// poison sets the interior of a buffer to NaN, so a point the first launch fails to write shows.
template <class T> __global__ void poison(T *b, int nx, int ny, int nz, int r, int dims) {
  const size_t n = (size_t)nx * ny * nz;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int x = (int)(i % nx), y = (int)((i / nx) % ny), z = (int)(i / ((size_t)nx * ny));
    const int rz = dims == 3 ? r : 0;
    if (x >= r && x < nx - r && y >= r && y < ny - r && z >= rz && z < nz - rz) b[i] = (T)NAN;
  }
}

template <class T>
__global__ void compare(const T *out, const T *ref, size_t n, unsigned long long *maxbits, unsigned long long *nans) {
  double m = 0;
  unsigned long long bad = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const double o = (double)out[i], f = (double)ref[i];
    if (o != o) {
      ++bad;
      continue;
    }
    const double d = fabs(o - f) / fmax(fabs(f), 1e-300);
    m = fmax(m, d);
  }
  // Non-negative doubles order like their bit patterns.
  atomicMax(maxbits, (unsigned long long)__double_as_longlong(m));
  if (bad) atomicAdd(nans, bad);
}

inline bool ok(cudaError_t e, const char *what, int id) {
  if (e == cudaSuccess) return true;
  std::printf("RESULT %d launch %s: %s\n", id, what, cudaGetErrorString(e));
  std::fflush(stdout);
  return false;
}

template <class T> struct Bench {
  Case c;
  size_t n;
  int reps;
  uint64_t seed;
  // A variant whose first timed run is over slow times the fastest run seen (best_ms, carried
  // across processes by the caller; 0 while unknown) is timed twice instead of reps times: its
  // time only has to say "slow", and slow variants take most of a data set's GPU time.
  double slow = 0, best_ms = 0;
  T *init = nullptr, *a = nullptr, *b = nullptr, *ref = nullptr;
  Point *dpts = nullptr;
  unsigned long long *stats = nullptr;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  // Grid-stride helper kernels: enough blocks to fill a GPU; a few threads under emulation.
#ifdef SMART_EMULATION
  static constexpr int blocks = 2, threads = 8;
#else
  static constexpr int blocks = 4096, threads = 256;
#endif

  Bench(const Case &cs, int reps_, uint64_t seed_, double slow_, double best_ms_)
      : c(cs), reps(reps_), seed(seed_), slow(slow_), best_ms(best_ms_) {
    n = (size_t)c.nx * c.ny * c.nz;
  }

  // setup allocates, fills and computes the reference; false means the device cannot run it.
  bool setup() {
    if (!ok(cudaStreamCreate(&stream), "stream", -1)) return false;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    if (!ok(cudaMalloc(&init, n * sizeof(T)), "cudaMalloc", -1) || !ok(cudaMalloc(&a, n * sizeof(T)), "cudaMalloc", -1) ||
        !ok(cudaMalloc(&b, n * sizeof(T)), "cudaMalloc", -1) || !ok(cudaMalloc(&ref, n * sizeof(T)), "cudaMalloc", -1) ||
        !ok(cudaMalloc(&dpts, c.npts * sizeof(Point)), "cudaMalloc", -1) ||
        !ok(cudaMalloc(&stats, 2 * sizeof(unsigned long long)), "cudaMalloc", -1))
      return false;
    cudaMemcpy(dpts, c.pts, c.npts * sizeof(Point), cudaMemcpyHostToDevice);
    SMART_LAUNCH(fill<T>, dim3(blocks), dim3(threads), 0, stream, init, n, seed);
    copy_bandwidth();
    // Reference: a and b both start as the initial grid.
    cudaMemcpyAsync(a, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    cudaMemcpyAsync(b, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    T *x = a, *y = b;
    for (int t = 0; t < c.steps; ++t) {
      SMART_LAUNCH(reference_step<T>, dim3(blocks), dim3(threads), 0, stream, x, y, c.nx, c.ny, c.nz, c.r, c.dims, dpts, c.npts);
      T *s = x;
      x = y;
      y = s;
    }
    cudaMemcpyAsync(ref, x, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    return ok(cudaStreamSynchronize(stream), "reference", -1) && ok(cudaGetLastError(), "reference", -1);
  }

  // copy_bandwidth times a device-to-device copy of the grid, counting bytes read and written.
  void copy_bandwidth() {
    std::vector<float> ms;
    for (int i = 0; i < 6; ++i) {
      cudaEventRecord(start, stream);
      cudaMemcpyAsync(a, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
      cudaEventRecord(stop, stream);
      cudaEventSynchronize(stop);
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      if (i > 0) ms.push_back(t);
    }
    float best = ms[0];
    for (float t : ms) best = t < best ? t : best;
    std::printf("COPYBW %.3f\n", 2.0 * n * sizeof(T) / (best * 1e-3) / 1e9);
    std::fflush(stdout);
  }

  void reset() {
    cudaMemcpyAsync(a, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    cudaMemcpyAsync(b, init, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
  }

  // variant checks and times one variant; false means the CUDA context is lost (a sticky error).
  bool variant(int id, T *(*run)(T *, T *, cudaStream_t)) {
    std::printf("BEGIN %d\n", id);
    std::fflush(stdout);
    reset();
    // Poison the interior of b: a point the first launch fails to write stays NaN.
    SMART_LAUNCH(poison<T>, dim3(blocks), dim3(threads), 0, stream, b, c.nx, c.ny, c.nz, c.r, c.dims);
    T *out = run(a, b, stream);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
      ok(e, "run", id);
      return !sticky(e);
    }
    ran(id);
    cudaMemsetAsync(stats, 0, 2 * sizeof(unsigned long long), stream);
    SMART_LAUNCH(compare<T>, dim3(blocks), dim3(threads), 0, stream, out, ref, n, stats, stats + 1);
    unsigned long long h[2];
    cudaMemcpyAsync(h, stats, sizeof h, cudaMemcpyDeviceToHost, stream);
    if (!ok(cudaStreamSynchronize(stream), "compare", id)) return false;
    double maxrel;
    std::memcpy(&maxrel, &h[0], sizeof maxrel);
    if (h[1] > 0 || !(maxrel <= c.tol)) {
      std::printf("RESULT %d wrong %.3e %llu\n", id, maxrel, h[1]);
      std::fflush(stdout);
      return true;
    }
    std::vector<float> ms;
    int want = reps;
    for (int i = 0; i < want; ++i) {
      reset();
      cudaEventRecord(start, stream);
      run(a, b, stream);
      cudaEventRecord(stop, stream);
      e = cudaEventSynchronize(stop);
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess) {
        ok(e, "timed run", id);
        return !sticky(e);
      }
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      ms.push_back(t);
      ran(id);
      if (i == 0 && slow > 0 && best_ms > 0 && t > slow * best_ms && want > 2) want = 2;
    }
    for (float t : ms) best_ms = (best_ms == 0 || t < best_ms) ? t : best_ms;
    std::printf("RESULT %d ok %.3e", id, maxrel);
    for (float t : ms) std::printf(" %.6f", t);
    std::printf("\n");
    std::fflush(stdout);
    return true;
  }

  // ran tells the caller a run finished, so a slow variant is not taken for a hung one.
  static void ran(int id) {
    std::printf("RUN %d\n", id);
    std::fflush(stdout);
  }

  static bool sticky(cudaError_t e) {
    return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress ||
           e == cudaErrorIllegalInstruction || e == cudaErrorHardwareStackError || e == cudaErrorLaunchTimeout ||
           e == cudaErrorUnknown;
  }
};

}  // namespace smart_bench
