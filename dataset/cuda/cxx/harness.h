// Verification harness for smart's generated kernels. Each check runs one variant's run() on
// random data and compares the whole grid with a plain float64 reference loop. It prints
//   BEGIN <id>
//   RESULT <id> ok <max relative error>
//   RESULT <id> wrong <max relative error> <where>
//   RESULT <id> overflow <where>   the reference leaves the element type's range, or the
//                                  magnitude of the terms summed float64's: nothing to check by
//   RESULT <id> launch <error>
// Under SMART_EMULATION (g++ with smart's emulation prelude) "device" buffers are host memory;
// otherwise the CUDA runtime is used, so the same harness checks kernels on a GPU.
#ifndef SMART_HARNESS_H
#define SMART_HARNESS_H
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SMART_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define SMART_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define SMART_POISON(p, n) ((void)(p), (void)(n))
#define SMART_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace smart_check {

struct Point {
  int dx, dy, dz;
  double c;
};

// Case is a variant's stencil on its verification grid.
struct Case {
  int dims, nx, ny, nz, r, steps;
  const Point *pts;
  int npts;
  double tol;  // largest error accepted, relative to the magnitude of the terms summed
};

// uniform returns numbers in [1, 2) from a splitmix64 sequence: far from zero, so relative
// errors stay meaningful for stencils with positive coefficients.
inline double uniform(uint64_t &s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return 1.0 + (double)(z >> 11) * 0x1p-53;
}

inline bool interior(const Case &c, int x, int y, int z) {
  const int rz = c.dims == 3 ? c.r : 0;
  return x >= c.r && x < c.nx - c.r && y >= c.r && y < c.ny - c.r && z >= rz && z < c.nz - rz;
}

// reference applies the steps the plain way: every interior point becomes the weighted sum of
// its neighbours; points within r of the edge keep their value. mag, starting as |a|, goes
// through the same steps with every term's magnitude (|c| |value|): the scale of the rounding
// errors of any order of summing, which cancellation (coefficients of both signs) leaves far
// above the result.
inline void reference(const Case &c, std::vector<double> &a, std::vector<double> &mag) {
  std::vector<double> b = a, mb = mag;
  const long long sy = c.nx, sz = (long long)c.nx * c.ny;
  for (int t = 0; t < c.steps; ++t) {
    for (int z = 0; z < c.nz; ++z)
      for (int y = 0; y < c.ny; ++y)
        for (int x = 0; x < c.nx; ++x) {
          const long long i = x + sy * y + sz * z;
          if (!interior(c, x, y, z)) {
            b[i] = a[i];
            mb[i] = mag[i];
            continue;
          }
          double v = 0, m = 0;
          for (int p = 0; p < c.npts; ++p) {
            const long long j = i + c.pts[p].dx + sy * c.pts[p].dy + sz * c.pts[p].dz;
            v += c.pts[p].c * a[j];
            m += std::fabs(c.pts[p].c) * mag[j];
          }
          b[i] = v;
          mb[i] = m;
        }
    a.swap(b);
    mag.swap(mb);
  }
}

#ifdef SMART_EMULATION
template <class T> T *device_alloc(size_t n) { return new T[n]; }
template <class T> void device_free(T *p) { delete[] p; }
template <class T> void to_device(T *d, const T *h, size_t n) { std::memcpy(d, h, n * sizeof(T)); }
template <class T> void to_host(T *h, const T *d, size_t n) { std::memcpy(h, d, n * sizeof(T)); }
inline const char *device_sync() { return nullptr; }
#else
template <class T> T *device_alloc(size_t n) {
  T *p = nullptr;
  if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) return nullptr;
  return p;
}
template <class T> void device_free(T *p) { cudaFree(p); }
template <class T> void to_device(T *d, const T *h, size_t n) { cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice); }
template <class T> void to_host(T *h, const T *d, size_t n) { cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost); }
inline const char *device_sync() {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
}
#endif

template <class T> void check(int id, const Case &c, T *(*run)(T *, T *, cudaStream_t), uint64_t seed) {
  std::printf("BEGIN %d\n", id);
  std::fflush(stdout);
  const size_t n = (size_t)c.nx * c.ny * c.nz;
  // Guard zones of NaN on both sides catch writes outside the grid and poison reads outside it.
  const size_t guard = (size_t)c.nx * c.ny * (c.r + 1) + 64;
  const size_t total = n + 2 * guard;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> a(total, nan), b(total, nan);
  std::vector<double> ref(n), mag(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    const T v = (T)uniform(s);
    a[guard + i] = v;
    ref[i] = (double)v;
    mag[i] = std::fabs((double)v);
  }
  // The second buffer holds the boundary (never written by a kernel) and NaN inside, so a point
  // a kernel fails to write is caught.
  for (int z = 0; z < c.nz; ++z)
    for (int y = 0; y < c.ny; ++y)
      for (int x = 0; x < c.nx; ++x) {
        const size_t i = guard + x + (size_t)c.nx * (y + (size_t)c.ny * z);
        b[i] = interior(c, x, y, z) ? nan : a[i];
      }
  T *da = device_alloc<T>(total), *db = device_alloc<T>(total);
  if (da == nullptr || db == nullptr) {
    std::printf("RESULT %d launch cannot allocate %zu elements\n", id, 2 * total);
    std::fflush(stdout);
    return;
  }
  to_device(da, a.data(), total);
  to_device(db, b.data(), total);
#ifdef SMART_EMULATION
  // Under AddressSanitizer any access to the guard zones, read or write, stops the run with a
  // report; without it the guard zones still catch writes.
  for (T *d : {da, db}) {
    SMART_POISON(d, guard * sizeof(T));
    SMART_POISON(d + guard + n, guard * sizeof(T));
  }
#endif
  T *res = run(da + guard, db + guard, (cudaStream_t)0);
#ifdef SMART_EMULATION
  for (T *d : {da, db}) SMART_UNPOISON(d, total * sizeof(T));
#endif
  if (const char *err = device_sync()) {
    std::printf("RESULT %d launch %s\n", id, err);
    std::fflush(stdout);
    device_free(da);
    device_free(db);
    return;
  }
  to_host(a.data(), da, total);
  to_host(b.data(), db, total);
  device_free(da);
  device_free(db);
  if (res != da + guard && res != db + guard) {
    std::printf("RESULT %d wrong inf run returned neither buffer\n", id);
    std::fflush(stdout);
    return;
  }
  const std::vector<T> &got = res == da + guard ? a : b;
  for (const std::vector<T> *buf : {&a, &b}) {
    for (size_t i = 0; i < guard; ++i) {
      if (!std::isnan((*buf)[i]) || !std::isnan((*buf)[guard + n + i])) {
        std::printf("RESULT %d wrong inf wrote outside the grid (guard element %zu %s it)\n", id,
                    std::isnan((*buf)[i]) ? i + 1 : guard - i, std::isnan((*buf)[i]) ? "after" : "before");
        std::fflush(stdout);
        return;
      }
    }
  }
  reference(c, ref, mag);
  // A stencil whose values outgrow T within the steps has no result a kernel could match, and
  // one whose magnitudes outgrow float64 has no scale to measure errors by (any error divided
  // by an infinite magnitude is 0, so a wrong kernel would pass): say so rather than judge the
  // kernel. Magnitudes beyond T alone are still a scale; the kernel never computes them.
  const double most = (double)std::numeric_limits<T>::max();
  const char *type = sizeof(T) == 4 ? "float32" : "float64";
  for (size_t i = 0; i < n; ++i) {
    const bool ref_bad = !(std::fabs(ref[i]) <= most);  // NaN included
    if (!ref_bad && std::isfinite(mag[i])) continue;
    const int x = i % c.nx, y = i / c.nx % c.ny, z = i / ((size_t)c.nx * c.ny);
    if (std::isnan(ref[i]))
      std::printf("RESULT %d overflow the stencil overflows %s within %d steps: its reference at point (%d,%d,%d) is NaN (overflows of both signs summed), so no kernel can match it\n",
                  id, type, c.steps, x, y, z);
    else if (ref_bad)
      std::printf("RESULT %d overflow the stencil overflows %s within %d steps: its reference at point (%d,%d,%d) is %.17g, beyond the largest %s (%.17g), so no kernel can match it\n",
                  id, type, c.steps, x, y, z, ref[i], type, most);
    else
      std::printf("RESULT %d overflow the stencil overflows float64 within %d steps: the magnitude of the terms summed at point (%d,%d,%d) is %g (its reference %.17g), so no error can be measured against it\n",
                  id, c.steps, x, y, z, mag[i], ref[i]);
    std::fflush(stdout);
    return;
  }
  // The error is relative to the magnitude of the terms summed, not to the result; below T's
  // normal range rounding is absolute, as if the magnitude were the smallest normal number.
  // Reference and magnitude are finite here, so an output that is not finite has an error that
  // is not either, and fails.
  const double tiny = (double)std::numeric_limits<T>::min();
  double worst = 0;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; ++i) {
    const double g = (double)got[guard + i], w = ref[i];
    double e = std::fabs(g - w) / std::fmax(mag[i], tiny);
    if (!(e <= c.tol)) {  // NaN included
      if (bad++ == 0) first = i;
      e = std::isnan(e) ? INFINITY : e;
    }
    worst = std::fmax(worst, e);
  }
  if (bad == 0) {
    std::printf("RESULT %d ok %.3e\n", id, worst);
  } else {
    const int x = first % c.nx, y = first / c.nx % c.ny, z = first / ((size_t)c.nx * c.ny);
    const double g = (double)got[guard + first];
    if (std::isnan(g))
      std::printf("RESULT %d wrong %.3e point (%d,%d,%d) is NaN (never written, or computed from unwritten data or from an overflow), want %.17g; %zu of %zu points wrong\n", id, worst, x, y, z,
                  ref[first], bad, n);
    else
      std::printf("RESULT %d wrong %.3e point (%d,%d,%d) is %.17g, want %.17g; %zu of %zu points wrong\n", id, worst, x, y, z, g,
                  ref[first], bad, n);
  }
  std::fflush(stdout);
}

}  // namespace smart_check
#endif  // SMART_HARNESS_H
