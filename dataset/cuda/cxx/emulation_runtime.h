// The few CUDA runtime calls smart's GPU benchmark harness makes, emulated on the host, so that
// the harness and the Go runner around it are tested without a GPU: include after emulation.h.
// Memory is host memory, launches are synchronous, events read a steady clock, and errors never
// happen unless the program crashes (which the runner must survive anyway).
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
constexpr cudaError_t cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorLaunchTimeout = 702,
                      cudaErrorIllegalAddress = 700, cudaErrorHardwareStackError = 714,
                      cudaErrorIllegalInstruction = 715, cudaErrorMisalignedAddress = 716,
                      cudaErrorLaunchFailure = 719, cudaErrorUnknown = 999;

struct smart_emu_event {
  std::chrono::steady_clock::time_point t;
};
typedef smart_emu_event *cudaEvent_t;

inline const char *cudaGetErrorString(cudaError_t) { return "emulated CUDA error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaStreamCreate(cudaStream_t *s) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
template <class T> cudaError_t cudaMalloc(T **p, size_t bytes) {
  *p = static_cast<T *>(std::malloc(bytes));
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
  std::memcpy(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::memcpy(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) {
  std::memset(d, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new smart_emu_event{};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  e->t = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
  return cudaSuccess;
}

inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
  std::atomic_ref<unsigned long long> a(*p);
  unsigned long long old = a.load();
  while (old < v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) {
  std::atomic_ref<unsigned long long> a(*p);
  unsigned long long old = a.load();
  while (old > v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}
inline long long __double_as_longlong(double d) { return std::bit_cast<long long>(d); }
