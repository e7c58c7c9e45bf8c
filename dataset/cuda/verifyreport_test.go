package cuda

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"smart"
	"smart/space"
)

// TestVerifyReport: unsettled results are left out, failures counted, listed and made an
// error, and the JSON keeps the origin beside the result.
func TestVerifyReport(t *testing.T) {
	ok := Check{Status: smart.StatusOK}
	results := []Result{
		{StencilID: "c1", OC: smart.Combination(smart.ST), Setting: smart.Setting{"bx": 32}, PTX: ok, CPU: ok, MaxRelErr: 1.5e-15},
		{StencilID: "c2", OC: smart.Combination(smart.TB), Setting: smart.Setting{"tt": 2}, PTX: ok, CPU: Check{Status: smart.StatusWrongResult, Detail: "x=3"}, MaxRelErr: 0.5},
		{StencilID: "c3", OC: 0, PTX: ok}, // stopped before its CPU run
	}
	origin := []Origin{{File: "a.json", Name: "a", ID: "ida"}, {File: "b.json", ID: "idb"}, {File: "a.json", Name: "a", ID: "ida"}}
	r := NewReport("A100", 7, results, origin, []string{"c.json: no valid setting"})
	r.Fewer = []string{"d.json: TB has only 2 settings on the verification grid: all verified"}
	if len(r.Results) != 2 || r.Failed != 1 {
		t.Fatalf("report keeps %d results, %d failed; want 2, 1", len(r.Results), r.Failed)
	}
	if err := r.Err(); err == nil || err.Error() != "1 of 2 variants failed verification" {
		t.Errorf("Err() = %v", err)
	}
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `STENCIL  OC  SETTING  PTX  CPU           MAX REL ERR
a        ST  bx=32    ok   ok            1.5e-15
b.json   TB  tt=2     ok   wrong_result  -

Failures:
  b.json (c2): TB tt=2: ptx ok, cpu wrong_result: x=3
note: d.json: TB has only 2 settings on the verification grid: all verified
skipped c.json: no valid setting
2 variants: 1 passed, 1 failed; 1 OC-stencil pairs skipped, unverified (above)
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant\n%s", b.String(), want)
	}
	js, err := json.Marshal(r.Results[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(js), `{"stencil":{"file":"a.json","name":"a","id":"ida"},"stencil_id":"c1","oc":"ST"`) {
		t.Errorf("row JSON %s", js)
	}
	if NewReport("A100", 7, results[:1], origin[:1], nil).Err() != nil {
		t.Error("a report without failures is an error")
	}
	// Every variant skipped: nothing was checked, which is no pass; the JSON lists no results.
	none := NewReport("A100", 7, nil, nil, []string{"a.json: TB: no valid setting"})
	if err := none.Err(); err == nil || !strings.Contains(err.Error(), "no variant was verified") {
		t.Errorf("a report of nothing verified: Err() = %v", err)
	}
	if js, err := json.Marshal(none); err != nil || !strings.Contains(string(js), `"results":[]`) {
		t.Errorf("a report of nothing verified: %s (%v); want an empty list of results", js, err)
	}
}

// TestVerifyReportJSONInfinite: a variant whose error is infinite (a point never written, a
// guard cell written) is written with max_rel_err null and its failure kept, beside the others.
func TestVerifyReportJSONInfinite(t *testing.T) {
	ok := Check{Status: smart.StatusOK}
	wrong := Check{Status: smart.StatusWrongResult, Detail: "point (1,1,0) is NaN"}
	results := []Result{
		{StencilID: "c1", PTX: ok, CPU: wrong, MaxRelErr: RelErr(math.Inf(1))},
		{StencilID: "c2", PTX: ok, CPU: wrong, MaxRelErr: RelErr(math.NaN())},
		{StencilID: "c3", PTX: ok, CPU: ok, MaxRelErr: 2.5e-16},
		{StencilID: "c4", PTX: ok, CPU: Check{Status: smart.StatusInvalid, Detail: "the stencil overflows float32"}}, // nothing compared
	}
	r := NewReport("sm_80", 1, results, make([]Origin, len(results)), nil)
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Failed  int `json:"failed"`
		Results []struct {
			StencilID string   `json:"stencil_id"`
			CPU       Check    `json:"cpu"`
			MaxRelErr *float64 `json:"max_rel_err"`
		} `json:"results"`
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%v in %s", err, js)
	}
	if got.Failed != 3 || len(got.Results) != 4 {
		t.Fatalf("%d results, %d failed; want 4, 3: %s", len(got.Results), got.Failed, js)
	}
	if got.Results[3].MaxRelErr != nil {
		t.Errorf("a check that compared nothing has max_rel_err %v; want null", *got.Results[3].MaxRelErr)
	}
	for i, row := range got.Results[:2] {
		if row.MaxRelErr != nil || row.CPU != wrong {
			t.Errorf("result %d: %+v, want max_rel_err null and the failure kept", i, row)
		}
	}
	if e := got.Results[2].MaxRelErr; e == nil || *e != 2.5e-16 {
		t.Errorf("a finite error reads back as %v, want 2.5e-16", e)
	}
}

// TestSampleFiles: the variants carry their files and are drawn alike from the same seed, and
// an OC without a setting on the verification grid is skipped, not an error.
func TestSampleFiles(t *testing.T) {
	files := []string{"a.json", "b.json"}
	stencils := []*smart.Stencil{named(t, "j2d5pt", 0, 0), named(t, "box", 3, 8)}
	ocs := []smart.Combination{smart.Combination(smart.ST), smart.Combination(smart.TB)}
	variants, origin, skipped, fewer, err := SampleFiles(context.Background(), files, stencils, ocs, 2, smart.SM80(), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.json", "a.json", "a.json", "a.json", "b.json", "b.json"}
	if len(variants) != len(want) || len(origin) != len(want) {
		t.Fatalf("%d variants, %d origins; want %d", len(variants), len(origin), len(want))
	}
	for i, o := range origin {
		if o.File != want[i] || o.ID != stencils[i/4].ID() {
			t.Errorf("variant %d comes from %+v, want %s", i, o, want[i])
		}
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "b.json: TB on grid") {
		t.Errorf("skipped %q", skipped)
	}
	if len(fewer) != 0 {
		t.Errorf("fewer %q, want none", fewer)
	}
	again, _, _, _, err := SampleFiles(context.Background(), files, stencils, ocs, 2, smart.SM80(), 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		if again[i].Setting.String() != variants[i].Setting.String() {
			t.Errorf("variant %d drawn as %s, then %s", i, variants[i].Setting, again[i].Setting)
		}
	}
}

// TestSampleFilesCancelled: a cancelled context stops the draws with an error wrapping
// context.Canceled that names where they stopped.
func TestSampleFilesCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	oc := smart.Combination(smart.ST)
	_, _, _, _, err := SampleFiles(ctx, []string{"a.json"}, []*smart.Stencil{named(t, "j2d5pt", 0, 0)}, []smart.Combination{oc}, 2, smart.SM80(), 3)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "a.json under "+oc.String()) {
		t.Errorf("cancelled: %v, want context.Canceled naming a.json and %s", err, oc)
	}
}

// TestSampleDistinct: the settings drawn for an OC are distinct, and an OC with fewer settings
// than asked for gets each of them once, which SampleFiles notes.
func TestSampleDistinct(t *testing.T) {
	st := named(t, "j2d5pt", 0, 0)
	// The OC with the fewest settings on the verification grid, where repeats are likeliest.
	var small smart.Combination
	var count int64 = -1
	for _, oc := range smart.Combinations() {
		sp, err := space.ForStencil(SmallCopy(st), oc, smart.SM80())
		if err != nil {
			t.Fatal(err)
		}
		if c := sp.Count().Int64(); c > 0 && (count < 0 || c < count) {
			small, count = oc, c
		}
	}
	for seed := range uint64(40) {
		vs, err := Sample(st, small, 3, smart.SM80(), rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != int(min(3, count)) {
			t.Errorf("seed %d: %d settings of %s, want %d", seed, len(vs), small, min(3, count))
		}
		seen := map[string]bool{}
		for _, v := range vs {
			if seen[v.Setting.String()] {
				t.Errorf("seed %d: %s %s drawn twice", seed, small, v.Setting)
			}
			seen[v.Setting.String()] = true
		}
	}
	vs, _, _, fewer, err := SampleFiles(context.Background(), []string{"a.json"}, []*smart.Stencil{st}, []smart.Combination{small}, int(count)+2, smart.SM80(), 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, v := range vs {
		seen[v.Setting.String()] = true
	}
	if len(vs) != int(count) || len(seen) != int(count) {
		t.Errorf("asked for %d of %d settings of %s: got %d, %d distinct; want each once", count+2, count, small, len(vs), len(seen))
	}
	want := fmt.Sprintf("a.json: %s has only %d settings on the verification grid: all verified", small, count)
	if len(fewer) != 1 || fewer[0] != want {
		t.Errorf("fewer %q, want %q", fewer, want)
	}
}
