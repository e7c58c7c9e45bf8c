// Package roofline is smart's analytic performance model: the time per step of a stencil under
// an optimization combination and setting on any catalogued NVIDIA GPU, computed from first
// principles (DRAM traffic with the reuse each optimization gives, FLOPs, shared-memory and L1
// traffic, occupancy, waves, latency hiding, barriers and launch overhead) rather than learned.
//
// It serves three purposes: an Evaluator (source "simulated") so the pipeline and tuners run
// end to end without a GPU; cross-GPU scaling of a measured time (the ratio of a variant's
// modelled times on two GPUs, which package transfer and predict take, after Habitat's wave
// scaling); and a feature for the learned models (Feature). A separate model of Kernel Tuner's
// convolution (ConvProblem) validates the scaling on real measurements of six GPUs.
//
// README.md in this folder gives the formulas, constants and assumptions, and what was
// calibrated on which data.
package roofline
