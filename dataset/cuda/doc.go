// Package cuda is smart's measuring instrument on the code side: it generates the CUDA C++
// source of a stencil under every optimization combination (streaming, block and cyclic
// merging, retiming, prefetching, temporal blocking, shared and constant memory, unrolling)
// and verifies generated kernels without a GPU.
//
// Generate turns a stencil and a decoded setting (smart.Tuning) into one self-contained C++
// namespace: the kernels, their launch configuration and a host function run that applies all
// of the stencil's time steps. The same source compiles three ways:
//
//   - with nvcc, for timed runs on a GPU (File gives a complete translation unit; the Runner
//     builds modules of device code only and launches their kernels from Kernel.Launches);
//   - with clang-14 to PTX under ClangPrelude, which proves it is valid CUDA for sm_80;
//   - with g++ -std=c++20 -pthread under EmulationPrelude, which runs each block's threads as
//     std::threads, one block at a time, so results can be compared with a reference.
//
// Verifier batches many variants into one translation unit per compiler, runs them on small
// grids (SmallCopy) from random data against a plain float64 reference loop, under
// AddressSanitizer with poisoned guard zones around the grid, and reports per variant whether
// the PTX compile and the CPU check passed (a barrier in divergent code hangs there, so every
// run has a timeout). Sample draws the settings to verify from the setting space (space).
//
// Runner measures variants on a GPU: one harness process per stencil (cxx/gpu_harness.h) holds
// the context, the grids and a reference result, loads the modules through the driver API as
// they are built, ahead of the GPU, and checks and times each variant, cutting short those far
// slower than the fastest so far (Cut; docs/measuring.md gives the protocol).
//
// Boundary policy, the same in kernels and reference: points within the stencil's order r of
// the grid edge keep their input value at every step; both buffers hold the initial grid, and
// kernels write interior points only.
package cuda
