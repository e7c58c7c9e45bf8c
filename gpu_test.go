package smart

import (
	"reflect"
	"testing"
)

func TestDevice(t *testing.T) {
	board := GPU{Name: "MI250X", SMs: 220, Dies: 2, MemoryGB: 128, BandwidthGBs: 3276.8, L2MB: 16, FP64TFLOPS: 47.9, FP32TFLOPS: 47.9,
		SharedPerSMKB: 64, RegsPerSM: 131072, BoostClockMHz: 1700}
	want := GPU{Name: "MI250X", SMs: 110, Dies: 1, MemoryGB: 64, BandwidthGBs: 1638.4, L2MB: 8, FP64TFLOPS: 23.95, FP32TFLOPS: 23.95,
		SharedPerSMKB: 64, RegsPerSM: 131072, BoostClockMHz: 1700}
	if got := board.Device(); !reflect.DeepEqual(got, want) {
		t.Errorf("one die of the board: %+v\nwant %+v", got, want)
	}
	if board.SMs != 220 {
		t.Error("Device changed the board")
	}
	one := GPU{Name: "H100-SXM", SMs: 132, MemoryGB: 80, BandwidthGBs: 3350, FP32TFLOPS: 67}
	if got := one.Device(); !reflect.DeepEqual(got, one) {
		t.Errorf("a GPU of one die: %+v; want it unchanged", got)
	}
}

func TestCheckMemory(t *testing.T) {
	h100 := GPU{Name: "H100-SXM", MemoryGB: 80}
	for _, c := range []struct {
		name  string
		grid  [3]int
		dtype Dtype
		fits  bool
	}{
		// 2 x 71152^2 x 8 bytes = 81.0e9 bytes = 75.4 GiB: more than 80 decimal GB would allow,
		// well inside the 79 GiB the board leaves after the context.
		{"81 decimal GB", [3]int{71152, 71152, 1}, Float64, true},
		// 2 grids x 8 bytes x 2^16 x 79·2^10 points = 79 GiB exactly: it fits, a row more does not.
		{"79 GiB exactly", [3]int{1 << 16, 79 << 10, 1}, Float64, true},
		{"a row over 79 GiB", [3]int{1 << 16, 79<<10 + 1, 1}, Float64, false},
		{"the same in float32", [3]int{1 << 16, 79<<10 + 1, 1}, Float32, true},
	} {
		s := &Stencil{Dims: 2, Grid: c.grid, Dtype: c.dtype}
		if err := h100.CheckMemory(s); (err == nil) != c.fits {
			t.Errorf("%s: CheckMemory = %v; want fits %v", c.name, err, c.fits)
		}
	}
}
