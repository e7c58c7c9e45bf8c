// Prelude that runs smart's generated CUDA kernels on the CPU, for checking them without a GPU:
//   g++ -std=c++20 -pthread -include this
// A launch runs the grid's blocks one at a time; the threads of a block are std::threads that
// stay alive for the whole launch and walk the blocks together. __syncthreads is a barrier, so
// a barrier that only some threads reach hangs (the caller's timeout catches it), as it is
// undefined on a GPU. Dynamic shared memory is one buffer per launch, filled with NaN before
// every block so that reading an element no thread wrote shows up in the result.
#ifndef SMART_EMULATION_H
#define SMART_EMULATION_H
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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
// where std::barrier's spinning waiters take the cores from the threads yet to arrive: on a
// loaded 2-core machine a batch of the verification's launches ran 1.6 to 4 times slower.
class barrier {
 public:
  explicit barrier(unsigned n, std::function<void()> done = nullptr) : n_(n), done_(std::move(done)) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m_);
    const unsigned long phase = phase_;
    if (++arrived_ < n_) {
      woken_.wait(lock, [&] { return phase_ != phase; });
      return;
    }
    arrived_ = 0;
    ++phase_;
    if (done_) done_();
    woken_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable woken_;
  const unsigned n_;
  unsigned arrived_ = 0;
  unsigned long phase_ = 0;
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
