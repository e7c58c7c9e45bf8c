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

// A call logged after a torn last line cuts it first: the file reads whole again, the torn call
// left out and the new one in.
func TestAppendCallAfterTornLine(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 3, 1, 9, 5, 0, 0, time.UTC)
	call := func(i int) Call {
		return Call{Start: start.Add(time.Duration(i) * time.Hour), End: start.Add(time.Duration(i)*time.Hour + time.Minute), GPU: "H100-SXM",
			Source: smart.Simulated, Rows: 10 + i, OK: 10}
	}
	for i := range 2 {
		if err := appendCall(dir, call(i)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, CallsFile)
	whole, _ := os.ReadFile(path)
	if err := os.WriteFile(path, whole[:len(whole)-7], 0o644); err != nil { // the second call torn
		t.Fatal(err)
	}
	if err := appendCall(dir, call(2)); err != nil {
		t.Fatal(err)
	}
	calls, err := ReadCalls(dir)
	if err != nil || len(calls) != 2 || calls[0].Rows != 10 || calls[1].Rows != 12 {
		t.Fatalf("%+v, %v; want the first call and the third", calls, err)
	}
}
