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
