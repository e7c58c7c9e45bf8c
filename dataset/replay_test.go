package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"smart"
)

// A variant the replayed data lacks is named as the user knows it: a foreign kernel's setting
// with its values as the kernel prints them (a float, a string) and no OC, which a foreign
// kernel does not have; a stencil's with its OC.
func TestReplayNamesMissingVariant(t *testing.T) {
	kernel := Kernel{Name: "k", Params: []Param{
		{Name: "alpha", Values: []int{2000000, 500000}, Labels: []json.RawMessage{json.RawMessage("2.0"), json.RawMessage("0.5")}},
		{Name: "method", Values: []int{342398372, 7}, Labels: []json.RawMessage{json.RawMessage(`"exact"`), json.RawMessage(`"fast"`)}},
		{Name: "shmem", Values: []int{0, 1}, Bool: true},
	}}
	st := &smart.Stencil{Name: "s", Dims: 2, Grid: [3]int{64, 64, 1}, Steps: 1, Points: []smart.Point{{}}}
	r := NewReplay([]smart.Measurement{
		{Kernel: "k", GPU: "A100-40GB", Device: "NVIDIA A100", Setting: smart.Setting{"alpha": 500000, "method": 7, "shmem": 0}, Status: smart.StatusOK, TimeMs: 1},
		{StencilID: st.ID(), GPU: "A100-40GB", Device: "NVIDIA A100", OC: smart.Combination(smart.ST), Setting: smart.Setting{"bx": 32}, Status: smart.StatusOK, TimeMs: 1},
	}, []Kernel{kernel})
	r.Kernel = "k"
	for _, tc := range []struct {
		name        string
		q           smart.Query
		want, never string
	}{
		{"kernel", smart.Query{Setting: smart.Setting{"alpha": 2000000, "method": 342398372, "shmem": 1}},
			"k alpha=2.0,method=exact,shmem=True on NVIDIA A100: the variant is not in the replayed data", smart.BaselineName},
		{"stencil", smart.Query{Stencil: st, OC: smart.Combination(smart.ST), Setting: smart.Setting{"bx": 64}},
			st.ID() + " ST bx=64 on NVIDIA A100: the variant is not in the replayed data", "kernel:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Evaluate(context.Background(), tc.q)
			if !errors.Is(err, ErrNotMeasured) || err.Error() != tc.want || strings.Contains(err.Error(), tc.never) {
				t.Errorf("error %v; want %q", err, tc.want)
			}
		})
	}
}

// TestReplayPicksOneSource: a GPU with rows of two devices or sources (a data set merged with
// AllowMixed: measured and simulated) is not answered from either by its GPU name, which would
// pass one source's times for the other's; the device's own name picks it.
func TestReplayPicksOneSource(t *testing.T) {
	st := &smart.Stencil{Name: "s", Dims: 2, Grid: [3]int{64, 64, 1}, Steps: 1, Points: []smart.Point{{}}}
	row := func(device string, src smart.Source, ms float64) smart.Measurement {
		return smart.Measurement{StencilID: st.ID(), GPU: "H100-SXM", Device: device, Setting: smart.Setting{"bx": 32}, Status: smart.StatusOK, TimeMs: ms, Source: src}
	}
	r := NewReplay([]smart.Measurement{row("", smart.Simulated, 1), row("NVIDIA H100 80GB HBM3", smart.Measured, 2)}, nil)
	for _, tc := range []struct {
		gpu  string
		ms   float64 // 0: refused
		want string
	}{
		{"H100-SXM", 0, `the replayed data holds rows of GPU H100-SXM from 2 devices or sources ("" (simulated), "NVIDIA H100 80GB HBM3" (measured))`},
		{"NVIDIA H100 80GB HBM3", 2, ""},
	} {
		m, err := r.Evaluate(context.Background(), smart.Query{Stencil: st, GPU: tc.gpu, Setting: smart.Setting{"bx": 32}})
		if tc.ms == 0 && (err == nil || !strings.Contains(err.Error(), tc.want)) || tc.ms != 0 && (err != nil || m.TimeMs != tc.ms) {
			t.Errorf("%s: %v ms, %v; want %v ms, %q", tc.gpu, m.TimeMs, err, tc.ms, tc.want)
		}
	}
}
