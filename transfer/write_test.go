package transfer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smart/dataset"
)

// TestKernelTunerCacheSaysItsStatistic: the cache's "smart" object says that "time" is the
// median of a setting's runs, where a Kernel Tuner user reads it as their mean, and each
// setting's "time" is still the mean of its "times", as Kernel Tuner has it.
func TestKernelTunerCacheSaysItsStatistic(t *testing.T) {
	a, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("T", "NVIDIA", 2000, 10)
	p, err := Predict([]Source{{GPU: a, Rows: kernelRows(a, 3, 1, 1)}}, Target{GPU: tgt}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	k := dataset.Kernel{Name: "k", Params: []dataset.Param{{Name: "x", Values: []int{1, 2, 3}}, {Name: "y", Values: []int{0, 1}}}}
	b, err := p.KernelTunerCache(k, "T", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Smart struct{ Time string }
		Cache map[string]struct {
			Time  float64
			Times []float64
		}
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Smart.Time, "median") || !strings.Contains(c.Smart.Time, "mean") {
		t.Errorf(`"smart": {"time": %q}; want it to say the times are medians, Kernel Tuner's means`, c.Smart.Time)
	}
	for key, r := range c.Cache {
		sum := 0.0
		for _, x := range r.Times {
			sum += x
		}
		if len(r.Times) == 0 || sum/float64(len(r.Times)) != r.Time {
			t.Errorf("%s: time %g is not the mean of times %v", key, r.Time, r.Times)
		}
	}
}

// TestWriteDataSetWholeOrNothing: a data set that fails as it is written leaves nothing behind,
// not even the directories made for it, and the same directory then takes a whole one; the
// function returned removes that again with the directories made for it, and leaves an empty
// directory given for it there, empty.
func TestWriteDataSetWholeOrNothing(t *testing.T) {
	a, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("T", "NVIDIA", 2000, 10)
	p, err := Predict([]Source{{GPU: a, Rows: kernelRows(a, 3, 1, 1)}}, Target{GPU: tgt}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	params := []string{"x", "y"}
	kernels := []dataset.Kernel{{Name: "k", Params: []dataset.Param{{Name: "x", Values: []int{1, 2, 3}}, {Name: "y", Values: []int{0, 1}}}}}
	root := t.TempDir()
	dir := filepath.Join(root, "new", "ds")

	// A setting given twice is refused by the data set after its first rows went in.
	twice := *p
	twice.Variants = append(twice.Variants[:len(twice.Variants):len(twice.Variants)], p.Variants[0])
	_, err = WriteDataSet(dir, &twice, params, nil, kernels)
	if err == nil {
		t.Fatal("a setting given twice was written")
	}
	if !strings.Contains(err.Error(), "writing data set "+dir+": ") {
		t.Errorf("a setting given twice: %v, want the refusal to name %s", err, dir)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("a failed write left %s behind", entries[0].Name())
	}

	remove, err := WriteDataSet(dir, p, params, nil, kernels)
	if err != nil {
		t.Fatalf("the same directory after a failed write: %v", err)
	}
	if _, rows, err := dataset.ReadAll(dir); err != nil || len(rows) != len(p.Variants) {
		t.Fatalf("read back %d rows (%v), wrote %d", len(rows), err, len(p.Variants))
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("%d entries beside the data set, want none (no temporary directory)", len(entries)-1)
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("remove left %s behind", entries[0].Name())
	}

	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if remove, err = WriteDataSet(empty, p, params, nil, kernels); err != nil {
		t.Fatalf("an empty directory: %v", err)
	}
	if _, rows, err := dataset.ReadAll(empty); err != nil || len(rows) != len(p.Variants) {
		t.Fatalf("read back %d rows (%v) from the directory that was empty", len(rows), err)
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("the directory given empty: %d entries, %v; want it there and empty", len(entries), err)
	}
}

// TestWriteDataSetRefusesDot: the current directory, empty, named "." cannot have a data set
// renamed over it: WriteDataSet refuses it up front, saying to name it from outside, and writes
// nothing (it failed after writing, on removing ".").
func TestWriteDataSetRefusesDot(t *testing.T) {
	a, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("T", "NVIDIA", 2000, 10)
	p, err := Predict([]Source{{GPU: a, Rows: kernelRows(a, 3, 1, 1)}}, Target{GPU: tgt}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	kernels := []dataset.Kernel{{Name: "k", Params: []dataset.Param{{Name: "x", Values: []int{1, 2, 3}}, {Name: "y", Values: []int{0, 1}}}}}
	dir := t.TempDir()
	t.Chdir(dir)
	_, err = WriteDataSet(".", p, []string{"x", "y"}, nil, kernels)
	if err == nil || !strings.Contains(err.Error(), "name it from outside, as "+dir) {
		t.Errorf(`WriteDataSet("."): %v; want a refusal naming %s`, err, dir)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries written", len(entries))
	}
}

// TestCacheCoverage: a cache of predictions holds the settings some source holds; where they
// are not the kernel's whole space (counted by a space.json's conditions, else bounded by the
// product of tune_params), the note says how many it holds, since Kernel Tuner's simulation mode
// stops at the first setting it lacks, and the cache's "smart" object counts them.
func TestCacheCoverage(t *testing.T) {
	a, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("T", "NVIDIA", 2000, 10)
	p, err := Predict([]Source{{GPU: a, Rows: kernelRows(a, 3, 1, 1)}}, Target{GPU: tgt}, Settings{}) // x 1-3, y 0-1
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		xs          []int
		constraints []string
		space       string // "smart"."space_settings"; "" where unknown
		note        string // "" for none
	}{
		{"tune_params' product held", []int{1, 2, 3}, nil, "", ""},
		{"part of tune_params' product", []int{1, 2, 3, 4}, nil, "", "the cache holds the 6 settings some source holds, of the 8 that kernel k's tune_params combine: without a space.json"},
		{"the whole space", []int{1, 2, 3, 4}, []string{"x <= 3"}, "6", ""},
		{"part of the space", []int{1, 2, 3, 4}, []string{"x + y <= 4"}, "7", "the cache holds 6 of the 7 settings of kernel k's space (by its space.json's conditions)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := dataset.Kernel{Name: "k", Params: []dataset.Param{{Name: "x", Values: c.xs}, {Name: "y", Values: []int{0, 1}}}, Constraints: c.constraints}
			cov, err := p.CacheCoverage(t.Context(), k)
			if err != nil {
				t.Fatal(err)
			}
			if note := cov.Note(); (c.note == "") != (note == "") || !strings.HasPrefix(note, c.note) {
				t.Errorf("note %q; want one beginning %q", note, c.note)
			}
			if note := cov.Note(); c.note != "" && !strings.Contains(note, "Kernel Tuner's simulation mode stops at the first setting") {
				t.Errorf("note %q does not say Kernel Tuner's simulation mode stops", note)
			}
			b, err := p.KernelTunerCache(k, "T", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var cache struct {
				Smart map[string]json.RawMessage
				Cache map[string]json.RawMessage
			}
			if err := json.Unmarshal(b, &cache); err != nil {
				t.Fatal(err)
			}
			if got := string(cache.Smart["settings"]); got != "6" || len(cache.Cache) != 6 {
				t.Errorf(`"settings": %s, %d settings in the cache; want 6`, got, len(cache.Cache))
			}
			if got := string(cache.Smart["space_settings"]); got != c.space {
				t.Errorf(`"space_settings": %q; want %q`, got, c.space)
			}
		})
	}
	k := dataset.Kernel{Name: "k", Params: []dataset.Param{{Name: "x", Values: []int{1, 2, 3}}, {Name: "y", Values: []int{0, 1}}}, Constraints: []string{"z < 2"}}
	if _, err := p.KernelTunerCache(k, "T", time.Now()); err == nil || !strings.Contains(err.Error(), "counting the settings of kernel k's space") {
		t.Errorf("a condition of no parameter: %v; want a refusal", err)
	}
}
