package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart/data"
)

// jsonLines checks that out is JSON Lines, as every --json output is: each line exactly one
// JSON value, and nothing else; it returns the values.
func jsonLines(t *testing.T, out string) []json.RawMessage {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("--json output does not end in a newline: %.200q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var docs []json.RawMessage
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var d json.RawMessage
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("--json output does not decode: %v", err)
		}
		docs = append(docs, d)
	}
	if len(docs) != len(lines) {
		t.Fatalf("%d JSON values on %d lines; want one per line", len(docs), len(lines))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not one JSON value: %.200q", i+1, l)
		}
	}
	return docs
}

// TestJSONLines: the commands that answer stencil by stencil print one object per stencil, one
// per line, in the order given; the others print one line.
func TestJSONLines(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"j2d5pt", "j3d7pt"} {
		b, err := data.StencilFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, name+".json"))
		if err := os.WriteFile(files[len(files)-1], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := func(d json.RawMessage) string { // predict and recommend nest it, features does not
		var v struct {
			Name    string `json:"name"`
			Stencil struct {
				Name string `json:"name"`
			} `json:"stencil"`
		}
		if err := json.Unmarshal(d, &v); err != nil {
			t.Fatal(err)
		}
		return v.Name + v.Stencil.Name
	}
	for _, tc := range []struct {
		args  []string
		names []string // the stencils of the lines, in order; nil: one line of anything
	}{
		{[]string{"predict", "--gpu", "a100", "--json", files[0], files[1]}, []string{"j2d5pt", "j3d7pt"}},
		{[]string{"predict", "--gpu", "a100", "--json", files[1]}, []string{"j3d7pt"}},
		{[]string{"recommend", "--gpus", "a100,t4", "--json", dir}, []string{"j2d5pt", "j3d7pt"}},
		{[]string{"features", "--json", files[1], files[0], files[1]}, []string{"j3d7pt", "j2d5pt", "j3d7pt"}},
		{[]string{"gpus", "--json"}, nil},
		{[]string{"estimate", files[1], "--gpu", "a100", "--oc", "ST", "--json"}, nil},
		{[]string{"space", files[0], "--json"}, nil},
		{[]string{"space", files[0], "--oc", "TB", "--sample", "3", "--json"}, nil},
		{[]string{"codegen", files[0], "--oc", "BASE", "--setting", "bx=32,by=8,shared=0,const=0", "--json"}, nil},
		{[]string{"version", "--json"}, nil},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
			}
			docs := jsonLines(t, out)
			if tc.names == nil {
				if len(docs) != 1 {
					t.Errorf("%v: %d lines, want one", tc.args, len(docs))
				}
				return
			}
			var got []string
			for _, d := range docs {
				got = append(got, name(d))
			}
			if strings.Join(got, ",") != strings.Join(tc.names, ",") {
				t.Errorf("%v: lines for %v, want %v", tc.args, got, tc.names)
			}
		})
	}
}

// TestLazyProgressFirstReport: a bar begun by a report of work already done gives no rate for
// it: the items done before the bar began took no time of the bar's.
func TestLazyProgressFirstReport(t *testing.T) {
	var errs bytes.Buffer
	update, _ := lazyProgress(&env{stderr: &errs}, "drawing")
	update(1, 4)
	if line := errs.String(); !strings.Contains(line, "1/4  25.0% ?/s ETA ?") {
		t.Errorf("first report: %q; want no rate and no time left", line)
	}
}
