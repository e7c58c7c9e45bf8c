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
