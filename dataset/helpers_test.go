package dataset

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"smart"
	"smart/space"
)

// testSpace is a small stencil space: each parameter of the OC takes a few values, and blocks
// have at most 256 threads. It stands in for the real stencil space, which is not what these
// tests are about.
func testSpace(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*space.Space, error) {
	var params []space.Param
	for _, n := range smart.ParamNames(st.Dims, oc) {
		p := space.Param{Name: n, Values: []int{1, 2, 4}}
		switch n {
		case smart.ParamBlockX:
			p.Values = []int{32, 64, 128}
		case smart.ParamBlockY, smart.ParamBlockZ:
			p.Values = []int{1, 2, 4, 8}
		case smart.ParamShared, smart.ParamConst:
			p.Values = space.Bool()
		case smart.ParamStreamD:
			p.Values = space.Range(1, st.Dims, 1)
		}
		params = append(params, p)
	}
	last := smart.ParamBlockY
	if st.Dims == 3 {
		last = smart.ParamBlockZ
	}
	for i := range params {
		if params[i].Name == last {
			params[i].Constraints = []space.Constraint{{
				Name:  "threads <= 256",
				Reads: []string{smart.ParamBlockX, smart.ParamBlockY, last},
				Fn: func(v []int) bool {
					t := v[0] * v[1]
					if st.Dims == 3 {
						t *= v[2]
					}
					return t <= 256
				},
			}}
		}
	}
	return space.New(ctx, params)
}

// emptySpace has no valid setting for TB and is testSpace otherwise.
func emptyTB(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*space.Space, error) {
	if !oc.Has(smart.TB) {
		return testSpace(ctx, st, oc, gpu)
	}
	return space.New(ctx, []space.Param{{Name: "tt", Values: []int{1}, Constraints: []space.Constraint{{
		Name: "never", Reads: []string{"tt"}, Fn: func([]int) bool { return false }}}}})
}

// fakeEval is a deterministic evaluator: the time grows with the stencil's points and the block
// size; 128-thread-wide blocks with shared memory fail to launch. It counts its calls and can be
// told to fail (as a lost device) after a number of calls.
type fakeEval struct {
	calls     int
	failAfter int // 0: never
	batches   []int
}

var errDeviceLost = errors.New("device lost")

func (f *fakeEval) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if f.failAfter > 0 && f.calls >= f.failAfter {
		return smart.Measurement{}, errDeviceLost
	}
	f.calls++
	m := smart.Measurement{Source: smart.Simulated, Device: "fake", Status: smart.StatusOK}
	if q.Setting[smart.ParamBlockX] == 128 && q.Setting[smart.ParamShared] == 1 {
		m.Status, m.Error = smart.StatusLaunchError, "too many resources requested for launch\nat line 3, col 7"
		return m, nil
	}
	m.TimeMs = float64(q.Stencil.NNZ())*0.01 + float64(q.Setting[smart.ParamBlockX])/1000 + float64(q.OC)/100
	m.MinMs, m.MaxMs, m.MeanMs, m.Reps = m.TimeMs*0.99, m.TimeMs*1.02, m.TimeMs, 5
	return m, nil
}

// batchEval is fakeEval as a smart.BatchEvaluator.
type batchEval struct{ fakeEval }

func (b *batchEval) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	b.batches = append(b.batches, len(qs))
	out := make([]smart.Measurement, len(qs))
	for i, q := range qs {
		m, err := b.Evaluate(ctx, q)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

// testStencils returns n distinct small stencils of the given dimensions.
func testStencils(t testing.TB, n, dims int) []*smart.Stencil {
	t.Helper()
	var out []*smart.Stencil
	for i := range n {
		offs := []smart.Offset{{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}}
		for k := range i % 4 {
			offs = append(offs, smart.Offset{0, k + 1, 0})
		}
		coefs := smart.DeriveCoefficients(offs)
		coefs[0] += float64(i) // distinct contents, distinct IDs
		st, err := smart.NewStencil(fmt.Sprintf("test%02d", i), dims, offs, coefs, smart.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return out
}

func simMeta(params []string, plan *Plan, shard *Shard) Meta {
	return Meta{Sources: []smart.Source{smart.Simulated}, Devices: []Device{{GPU: "A100-40GB", Name: "analytic model"}},
		Params: params, Plan: plan, Shard: shard}
}
