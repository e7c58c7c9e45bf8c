package features

import (
	"fmt"

	"smart"
)

// gpuFields lists the GPU entries: name and how to read each from a smart.GPU.
func gpuFields() []struct {
	name string
	get  func(g smart.GPU) float64
} {
	return []struct {
		name string
		get  func(g smart.GPU) float64
	}{
		{"memory_gb", func(g smart.GPU) float64 { return g.MemoryGB }},
		{"bandwidth_gbs", func(g smart.GPU) float64 { return g.BandwidthGBs }},
		{"sms", func(g smart.GPU) float64 { return float64(g.SMs) }},
		{"fp64_tflops", func(g smart.GPU) float64 { return g.FP64TFLOPS }},
		{"fp32_tflops", func(g smart.GPU) float64 { return g.FP32TFLOPS }},
		{"l2_mb", func(g smart.GPU) float64 { return g.L2MB }},
		{"shared_per_sm_kb", func(g smart.GPU) float64 { return float64(g.SharedPerSMKB) }},
		{"regs_per_sm", func(g smart.GPU) float64 { return float64(g.RegsPerSM) }},
		{"max_threads_per_sm", func(g smart.GPU) float64 { return float64(g.MaxThreadsPerSM) }},
		{"boost_clock_mhz", func(g smart.GPU) float64 { return float64(g.BoostClockMHz) }},
	}
}

// GPUNames names the entries of GPU's vector; each is the JSON name of the smart.GPU field it
// copies.
func GPUNames() []string {
	var names []string
	for _, f := range gpuFields() {
		names = append(names, f.name)
	}
	return names
}

// GPU is the GPU's feature vector in the order of GPUNames: memory, DRAM bandwidth, SMs, FP64
// and FP32 peaks, L2, shared memory and registers per SM, threads per SM and boost clock, in the
// units of smart.GPU, of the device a kernel runs on (smart.GPU.Device: one die of the MI250X).
// Every entry must be positive: a catalogue entry that lacks one would silently teach a model
// that the GPU has none.
func GPU(g smart.GPU) ([]float64, error) {
	g = g.Device()
	fs := gpuFields()
	v := make([]float64, len(fs))
	for i, f := range fs {
		v[i] = f.get(g)
		if !(v[i] > 0) {
			return nil, fmt.Errorf("GPU %q: field %q is %v; give it a positive value in the catalogue", g.Name, f.name, v[i])
		}
	}
	return v, nil
}
