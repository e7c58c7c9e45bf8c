package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
	"smart/generator"
	"smart/tuner"
)

// TestTuneReplayNote: the note of a data set replayed for a stencil counts the rows the search
// does not cover by what they are: of the OCs not searched, repeats, and settings today's space
// rules out, by the rule they break and an example of why.
func TestTuneReplayNote(t *testing.T) {
	const classic = "../data/measured/h100-sxm/classic"
	dir := filepath.Join(t.TempDir(), "classic")
	if err := os.CopyFS(dir, os.DirFS(classic)); err != nil {
		t.Fatal(err)
	}
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// One row of j3d7pt under ST again: a repeat.
	rows, err := os.ReadFile(filepath.Join(dir, "rows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var again string
	for _, line := range strings.Split(string(rows), "\n") {
		if strings.HasPrefix(line, st.ID()+",,H100-SXM,") && strings.Contains(line, ",ST,") {
			again = line + "\n"
			break
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.csv"), append(rows, again...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ocs  string
		want []string
	}{
		{"one OC", "ST", []string{"covers only the 20 settings of j3d7pt it holds on the H100-SXM, under 1 OC; 581 of its 601 rows are not: 580 of OCs not searched and 1 repeating a setting\n"}},
		{"two OCs", "ST,ST_BM_RT_TB", []string{"covers only the 29 settings of j3d7pt it holds on the H100-SXM, under 2 OCs; 572 of its 601 rows are not: 560 of OCs not searched, 1 repeating a setting and 11 of settings today's space rules out on the H100-SXM: " +
			`11 breaking "registers, shared memory and threads fit the H100-SXM" (e.g. `, "registers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ocs, err := smart.ParseCombinations(tc.ocs)
			if err != nil {
				t.Fatal(err)
			}
			var notes bytes.Buffer
			tg, err := (Tune{Evaluator: "replay:" + dir, Stencil: st, OCs: ocs, Strategy: "random", Budget: tuner.Budget{Evaluations: 5}, Notes: &notes}).Open(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tg.Close()
			for _, w := range tc.want {
				if !strings.Contains(notes.String(), w) {
					t.Errorf("notes %q lack %q", notes.String(), w)
				}
			}
		})
	}
}
