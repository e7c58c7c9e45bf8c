package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"smart/app"
)

// TestVersion: smart version names the Go it was built with and every embedded model, --json
// says the same in one line that decodes into exactly the documented fields, and --version is
// the same command.
func TestVersion(t *testing.T) {
	code, text, errs := runCLI(t, "", "version")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if code, alias, _ := runCLI(t, "", "--version"); code != 0 || alias != text {
		t.Errorf("--version: exit %d, output differs from smart version's:\n%s", code, alias)
	}
	code, out, errs := runCLI(t, "", "version", "--json")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("--json: exit %d, stderr %q; want one line, got %d", code, errs, strings.Count(out, "\n"))
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var v app.Version
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v.Build.GoVersion != runtime.Version() || v.Build.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("build %+v, want Go %s on %s/%s", v.Build, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	if len(v.Models) < 6 {
		t.Fatalf("%d models, want the 4 defaults and the 2 of the H100's measurements", len(v.Models))
	}
	var want bytes.Buffer
	if err := v.WriteText(&want); err != nil { // the JSON holds everything the text says
		t.Fatal(err)
	}
	if want.String() != text {
		t.Errorf("the text from the JSON differs:\n%s\nwant\n%s", want.String(), text)
	}
	measured := 0
	for _, m := range v.Models {
		if !strings.Contains(text, m.Name+": ") || !strings.Contains(text, m.SHA256[:12]) {
			t.Errorf("the text lacks %s or its hash", m.Name)
		}
		// A model of one GPU's measurements answers every NVIDIA GPU (scaled), not that one alone.
		if m.GPU != "" {
			measured++
			if want := fmt.Sprintf("%s: %s %s of %d-D stencils, learned on the %s, used for every NVIDIA GPU;", m.Name, m.Kind, m.Task, m.Dims, m.GPU); !strings.Contains(text, want) {
				t.Errorf("the text lacks %q", want)
			}
		}
	}
	if measured == 0 {
		t.Error("no model of one GPU's measurements")
	}
	if !strings.Contains(text, "built with "+runtime.Version()) {
		t.Errorf("the text lacks the Go version:\n%s", text)
	}
}
