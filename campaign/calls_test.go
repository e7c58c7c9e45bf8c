package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smart"
)

// TestReadCallsTorn: calls.csv is read as rows.csv is: a torn last line (a call killed while
// logging) is left out, and a file without a whole line holds no calls, as a missing one; a
// damaged line before the last is still an error.
func TestReadCallsTorn(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 3, 1, 9, 5, 0, 0, time.UTC)
	for i := range 2 {
		c := Call{Start: start.Add(time.Duration(i) * time.Hour), End: start.Add(time.Duration(i)*time.Hour + time.Minute), GPU: "H100-SXM",
			Source: smart.Simulated, Rows: 10, OK: 10}
		if err := appendCall(dir, c); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := os.ReadFile(filepath.Join(dir, CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	header := strings.Join(callsHeader, ",")
	last := strings.LastIndexByte(strings.TrimSuffix(string(whole), "\n"), '\n') + 1
	for _, tc := range []struct {
		name, text string
		calls      int
		err        string
	}{
		{"whole", string(whole), 2, ""},
		{"torn last line", string(whole[:last+15]), 1, ""},
		{"last line without its newline", strings.TrimSuffix(string(whole), "\n"), 1, ""},
		{"empty", "", 0, ""},
		{"torn header", header[:10], 0, ""},
		{"header alone", header + "\n", 0, ""},
		{"damaged line before the last", string(whole[:last+15]) + "\n" + string(whole[last:]), 0, "calls.csv: record on line 3: wrong number of fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, CallsFile), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			calls, err := ReadCalls(dir)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%v; want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil || len(calls) != tc.calls {
				t.Fatalf("%d calls, %v; want %d", len(calls), err, tc.calls)
			}
		})
	}
}
