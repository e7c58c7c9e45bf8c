// Prelude that runs smart's generated CUDA kernels on the CPU, for checking them without a GPU:
//   g++ -std=c++20 -pthread -include this
// A launch runs the grid's blocks one at a time; the threads of a block are std::threads that
// stay alive for the whole launch and walk the blocks together. __syncthreads is a barrier, so
// a barrier that only some threads reach hangs (the caller's timeout catches it), as it is
// undefined on a GPU. Dynamic shared memory is one buffer per launch, filled with NaN before
// every block so that reading an element no thread wrote shows up in the result.
#ifndef SMART_EMULATION_H
#define SMART_EMULATION_H
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define SMART_EMULATION 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __constant__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
template <class F> cudaError_t cudaFuncSetAttribute(F *, cudaFuncAttribute, int) { return 0; }

namespace smart_emu {
inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

// barrier puts its waiters to sleep at once. A block has up to 1024 threads on a few cores,
// where waiters that spin first (std::barrier's, std::atomic's wait) take the cores from the
// threads yet to arrive, and a condition variable's woken threads queue for its mutex: on a
// loaded machine a futex is several times as fast, on a quiet one as fast as std::barrier
// (docs/results/newcomer.md).
class barrier {
 public:
  explicit barrier(unsigned n, std::function<void()> done = nullptr) : n_(n), done_(std::move(done)) {}
  void arrive_and_wait() {
    const unsigned phase = phase_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 < n_) {
      while (phase_.load(std::memory_order_acquire) == phase) sleep(phase);
      return;
    }
    arrived_.store(0, std::memory_order_relaxed);  // before the phase moves on: no thread arrives earlier
    if (done_) done_();
    phase_.fetch_add(1, std::memory_order_release);
    wake();
  }

 private:
#ifdef __linux__
  void sleep(unsigned phase) {
    syscall(SYS_futex, reinterpret_cast<unsigned *>(&phase_), FUTEX_WAIT_PRIVATE, phase, nullptr, nullptr, 0);
  }
  void wake() { syscall(SYS_futex, reinterpret_cast<unsigned *>(&phase_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0); }
#else
  void sleep(unsigned phase) { phase_.wait(phase, std::memory_order_acquire); }
  void wake() { phase_.notify_all(); }
#endif
  const unsigned n_;
  std::atomic<unsigned> arrived_{0}, phase_{0};
  std::function<void()> done_;
};

inline thread_local barrier *block_barrier;
inline thread_local unsigned char *dynamic_shared;

// launch takes the kernel call type-erased, so that the thread and barrier machinery is compiled
// once per translation unit rather than once per launch site.
inline void launch(dim3 grid, dim3 block, size_t shmem, const std::function<void()> &body) {
  const unsigned n = block.x * block.y * block.z;
  // Sized exactly (in doubles, for alignment), so AddressSanitizer sees overruns.
  std::unique_ptr<double[]> buf(new double[(shmem + sizeof(double) - 1) / sizeof(double)]);
  unsigned char *shared = reinterpret_cast<unsigned char *>(buf.get());
  auto poison = [shared, shmem]() noexcept { std::memset(shared, 0xff, shmem); };
  poison();
  barrier sync(n);
  // A separate barrier ends each block: a thread that leaves the kernel early waits here while
  // the others wait in __syncthreads, and the launch hangs.
  barrier end(n, poison);
  std::vector<std::jthread> threads;
  threads.reserve(n);
  for (unsigned t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
      blockDim = block;
      gridDim = grid;
      block_barrier = &sync;
      dynamic_shared = shared;
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            blockIdx = {x, y, z};
            body();
            end.arrive_and_wait();
          }
    });
  }
}
}  // namespace smart_emu

using smart_emu::blockDim;
using smart_emu::blockIdx;
using smart_emu::gridDim;
using smart_emu::threadIdx;
inline void __syncthreads() { smart_emu::block_barrier->arrive_and_wait(); }
template <class T> inline T __ldg(const T *p) { return *p; }

#define SMART_LAUNCH(kernel, grid, block, shmem, stream, ...) \
  ::smart_emu::launch((grid), (block), (shmem), [&] { kernel(__VA_ARGS__); })
#define SMART_DYNAMIC_SHARED(T, name) T *name = reinterpret_cast<T *>(::smart_emu::dynamic_shared)
#endif  // SMART_EMULATION_H
