package transfer

import (
	"testing"

	"smart"
)

// sources10k are five GPUs' times of a 10,000-setting kernel (100 x 50 x 2).
func sources10k() ([]Source, smart.GPU) {
	var src []Source
	for i, g := range []smart.GPU{gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 500, 40), gpu("C", "NVIDIA", 2000, 20),
		gpu("D", "NVIDIA", 800, 30), gpu("E", "NVIDIA", 1500, 25)} {
		rows := kernelRows(g, 5000, float64(i+1), 1)
		src = append(src, Source{GPU: g, Rows: rows})
	}
	return src, gpu("T", "NVIDIA", 3000, 50)
}

func BenchmarkPredict10k(b *testing.B) {
	src, tgt := sources10k()
	b.ResetTimer()
	for range b.N {
		if _, err := Predict(src, Target{GPU: tgt}, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPredict10kWith16Shots(b *testing.B) {
	src, tgt := sources10k()
	shots := kernelRows(tgt, 8, 2, 1.3)
	b.ResetTimer()
	for range b.N {
		if _, err := Predict(src, Target{GPU: tgt, Shots: shots}, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChooseShots10k(b *testing.B) {
	src, tgt := sources10k()
	b.ResetTimer()
	for range b.N {
		if _, err := ChooseShots(src, Target{GPU: tgt}, 16, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}
