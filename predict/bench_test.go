package predict

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"smart"
	"smart/generator/generatortest"
)

// cpuTime is the CPU time (user and system) the process has used: on a shared, loaded machine
// it says more about the work done than the wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkColdModels decodes the embedded models of 2-D and 3-D stencils, as the first
// prediction of a process does: gunzip and parse of the LightGBM text.
func BenchmarkColdModels(b *testing.B) {
	for _, name := range []string{"j2d9pt", "j3d7pt"} {
		st := sample(b, name)
		b.Run(name, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				ms, err := Defaults()
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := ms.For(st); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkPredict is one smart predict of a sample with the models decoded: the classes, the
// searches on the GPU asked about and on the 12 other NVIDIA GPUs.
func BenchmarkPredict(b *testing.B) {
	p := defaultPredictor(b)
	for _, name := range []string{"j2d9pt", "j3d7pt", "j3d27pt"} {
		st := sample(b, name)
		if _, _, err := p.Models.For(st); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				if _, err := p.Predict(context.Background(), Input{Stencil: st}, "a100"); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkPredictBeyond is one smart predict of stencils of an order no learned model reads,
// which the analytic model alone answers: every OC screened on each GPU of the table.
func BenchmarkPredictBeyond(b *testing.B) {
	p := defaultPredictor(b)
	for _, st := range []*smart.Stencil{generatortest.Named(b, "star", 2, 6, [3]int{}), generatortest.Named(b, "star", 3, 8, [3]int{})} {
		b.Run(fmt.Sprintf("%dd-order%d", st.Dims, st.Order()), func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				if _, err := p.Predict(context.Background(), Input{Stencil: st}, "a100"); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}
