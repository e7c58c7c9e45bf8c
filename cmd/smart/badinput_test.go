package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badCase is a command line that must fail with code, its stderr naming each of want, and
// leave every file of keep as it was, byte for byte.
type badCase struct {
	name string
	args []string
	code int
	want []string
	keep []string
}

func (c badCase) check(t *testing.T) {
	t.Helper()
	before := map[string][]byte{}
	for _, p := range c.keep {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = b
	}
	code, _, errs := runCLI(t, "", c.args...)
	if code != c.code {
		t.Errorf("exit %d, want %d; stderr %q", code, c.code, errs)
	}
	for _, w := range c.want {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr %q does not say %q", errs, w)
		}
	}
	for p, b := range before {
		if after, err := os.ReadFile(p); err != nil || !bytes.Equal(after, b) {
			t.Errorf("%s changed: %q, %v; was %q", p, after, err, b)
		}
	}
}

// writeFiles writes name: content into a new directory and returns the paths by name.
func writeFiles(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, text := range files {
		paths[name] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[name], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// TestBadStencilFiles: a stencil file that is not what it seems is refused naming the file and
// the field, by every command that reads one.
func TestBadStencilFiles(t *testing.T) {
	const offs = `"offsets":[[0,0],[1,0]]`
	f := writeFiles(t, map[string]string{
		"steps0.json": `{"dims":2,"steps":0,` + offs + `}`,
		"null.json":   "null\n",
		"twice.json":  `{"dims":2,"steps":5,` + offs + `,"steps":50}`,
		"nulled.json": `{"dims":2,"grid":null,` + offs + `}`,
		"nodims.json": `{` + offs + `}`,
		"many.json":   `{"dims":2,"offsets":[` + strings.Repeat("[0,0],", 5000) + `[0,0]]}`,
		"huge.json":   `{"dims":3,"offsets":[` + strings.Repeat("[1,1,1],", 150_000) + `[0,0,0]]}`,
		"big.json":    `{"dims":3,"grid":[2048,2048,1024],"offsets":[[0,0,0],[1,0,0]]}`,
	})
	for _, c := range []badCase{
		{"steps 0", []string{"show", f["steps0.json"]}, 1, []string{"stencil file " + f["steps0.json"], `field "steps": is 0; use 1 to`}, nil},
		{"null", []string{"features", f["null.json"]}, 1, []string{"stencil file " + f["null.json"], "the file holds null, not a stencil object"}, nil},
		{"key twice", []string{"estimate", f["twice.json"], "--gpu", "a100", "--oc", "BASE"}, 1, []string{f["twice.json"], `field "steps": is given twice`}, nil},
		{"null field", []string{"space", f["nulled.json"]}, 1, []string{f["nulled.json"], `field "grid": is null`}, nil},
		{"dims missing", []string{"show", f["nodims.json"]}, 1, []string{f["nodims.json"], `field "dims": is missing; give 2 or 3`}, nil},
		{"too many offsets", []string{"show", f["many.json"]}, 1, []string{f["many.json"], `field "offsets": lists 5001 offsets; a stencil has at most 4913`}, nil},
		{"file too large", []string{"predict", "--gpu", "a100", f["huge.json"]}, 1, []string{f["huge.json"], "over 1048576 bytes (1 MiB)", "at most 4913 offsets, of order 8 or less"}, nil},
		// predict refuses this grid on a T4; estimate must too, by the same check.
		{"grid beyond memory", []string{"estimate", f["big.json"], "--gpu", "t4", "--oc", "BASE"}, 1, []string{"stencil file " + f["big.json"], `field "grid" 2048x2048x1024`, "its two grids need 64.0 GiB; the T4 has 16 GiB, 15 GiB of it left after the CUDA context"}, nil},
		{"grid beyond memory, predict", []string{"predict", f["big.json"], "--gpu", "t4"}, 1, []string{"its two grids need 64.0 GiB; the T4 has 16 GiB, 15 GiB of it left after the CUDA context"}, nil},
		{"analytic weight above 1", []string{"predict", "--gpu", "a100", "--analytic-weight", "1.5", "j3d7pt"}, 2, []string{"--analytic-weight 1.5", "from 0 (the runtime model alone) to 1"}, nil},
	} {
		t.Run(c.name, c.check)
	}

	// A byte-order mark is skipped: the file reads as without it.
	bom := writeFiles(t, map[string]string{"bom.json": "\xef\xbb\xbf" + `{"dims":2,"steps":4,` + offs + `}`})["bom.json"]
	code, out, errs := runCLI(t, "", "show", bom)
	if code != 0 || !strings.Contains(out, "2 points, grid 8192x8192, float64, 4 steps") {
		t.Errorf("show of a file with a byte-order mark: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestOutputNotOurs: a file a command would write that exists and that smart did not write
// (a notes file) is refused before any work, naming the flag, and left as it was; --force
// replaces it, and smart's own output is replaced without it.
func TestOutputNotOurs(t *testing.T) {
	const notes = "my notes: do not lose\n"
	dir := t.TempDir()
	notesAt := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(notes), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	codegen := func(out string, extra ...string) []string {
		return append([]string{"codegen", "j2d5pt", "--oc", "BASE", "--setting", "bx=32,by=8,shared=0,const=0", "-o", out}, extra...)
	}
	recommend := func(out string, extra ...string) []string {
		return append([]string{"recommend", "j2d5pt", "--gpus", "t4", "--html", out}, extra...)
	}
	tune := func(flag, out string, extra ...string) []string {
		return append([]string{"tune", "j2d5pt", "--evaluator", "sim", "--method", "random", "--budget", "3", flag, out}, extra...)
	}
	data := trainFixture(t)
	train := func(out string, extra ...string) []string {
		return append([]string{"train", "--task", "runtime", "--data", data, "--cv", "0", "--param", "rounds=3", "-o", out}, extra...)
	}
	for _, c := range []struct {
		name string
		args func(out string, extra ...string) []string
		flag string
	}{
		{"codegen -o", codegen, "-o"},
		{"recommend --html", recommend, "--html"},
		{"tune --trace", func(out string, extra ...string) []string { return tune("--trace", out, extra...) }, "--trace"},
		{"tune --emit", func(out string, extra ...string) []string { return tune("--emit", out, extra...) }, "--emit"},
		{"train -o", train, "-o"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := notesAt(strings.NewReplacer(" ", "", "-", "").Replace(c.name))
			badCase{c.name, c.args(p), 2, []string{c.flag + " " + p + ": the file exists and is not", "give --force to overwrite it"}, []string{p}}.check(t)
			// Its own output, written once, is replaced the next time.
			ours := filepath.Join(dir, "ours-"+filepath.Base(p))
			for i := range 2 {
				if code, _, errs := runCLI(t, "", c.args(ours)...); code != 0 {
					t.Fatalf("run %d writing %s: exit %d: %s", i+1, ours, code, errs)
				}
			}
			if code, _, errs := runCLI(t, "", c.args(p, "--force")...); code != 0 {
				t.Fatalf("--force: exit %d: %s", code, errs)
			}
			if b, _ := os.ReadFile(p); string(b) == notes {
				t.Errorf("--force left the notes in %s", p)
			}
		})
	}
}

// TestOutputUnwritable: an output that cannot be written is refused before any work, saying
// why in words that fit (not /proc's "no such file or directory" alone).
func TestOutputUnwritable(t *testing.T) {
	f := writeFiles(t, map[string]string{"notes.txt": "mine\n"})
	file := f["notes.txt"]
	cases := []badCase{
		{"bench --out under a file", []string{"bench", "--backend", "sim", "--random", "2", "--dims", "2", "--samples", "1", "--out", filepath.Join(file, "runs")}, 1,
			[]string{"--out: cannot write in " + filepath.Join(file, "runs") + ": " + file + " is not a directory"}, []string{file}},
		{"codegen -o under a file", []string{"codegen", "j2d5pt", "--oc", "BASE", "--setting", "bx=32,by=8,shared=0,const=0", "-o", filepath.Join(file, "k.cu")}, 1,
			[]string{"cannot write " + filepath.Join(file, "k.cu") + ": " + file + " is not a directory"}, []string{file}},
		{"generate --out under a file", []string{"generate", "--shape", "j2d5pt,j3d7pt", "--out", filepath.Join(file, "st") + "/"}, 1,
			[]string{file + " is not a directory"}, []string{file}},
		{"dataset merge --out under a file", []string{"dataset", "merge", "../../data/measured/h100-sxm/classic", "--out", filepath.Join(file, "m")}, 1,
			[]string{file + " is not a directory"}, []string{file}},
		{"campaign plan --out under a file", []string{"campaign", "plan", "--per-dims", "1", "--out", filepath.Join(file, "c")}, 1,
			[]string{"--out: cannot write in " + filepath.Join(file, "c") + ": " + file + " is not a directory"}, []string{file}},
	}
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		cases = append(cases,
			badCase{"bench --out in /proc", []string{"bench", "--backend", "sim", "--random", "2", "--dims", "2", "--samples", "1", "--out", "/proc/smart-runs"}, 1,
				[]string{"--out: cannot write in /proc/smart-runs: directory /proc does not take new files"}, nil},
			badCase{"recommend --html in /proc", []string{"recommend", "j2d5pt", "--gpus", "t4", "--html", "/proc/report.html"}, 1,
				[]string{"cannot write /proc/report.html: directory /proc does not take new files"}, nil})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t)
			// Refused before drawing a single setting or stencil.
			if _, _, errs := runCLI(t, "", c.args...); strings.Contains(errs, "drawing") {
				t.Errorf("drew the settings before refusing the output: %q", errs)
			}
		})
	}
}

// TestFlagAdvice: a flag value that does not parse says what the flag takes; a GPU that cannot
// be predicted says why; a subcommand's usage error points to its own help.
func TestFlagAdvice(t *testing.T) {
	for _, c := range []badCase{
		{"seed -1", []string{"generate", "--dims", "2", "--order", "1", "--seed", "-1"}, 2, []string{`--seed takes an integer from 0 to 18446744073709551615, not "-1"`}, nil},
		{"seed too large", []string{"tune", "j2d5pt", "--evaluator", "sim", "--seed", "18446744073709551616"}, 2, []string{`--seed "18446744073709551616" is out of range: it takes an integer from 0 to 18446744073709551615`}, nil},
		{"count not a number", []string{"generate", "--dims", "2", "--order", "1", "--count", "ten"}, 2, []string{`--count takes a whole number, not "ten"`}, nil},
		{"time not a duration", []string{"bench", "--time", "5", "--out", "x"}, 2, []string{`--time takes a duration, such as 90s, 10m or 1h30m, not "5"`}, nil},
		{"AMD GPUs only", []string{"recommend", "j2d5pt", "--gpus", "w6600,mi250x"}, 2, []string{"--gpus: the GPUs to rank are only W6600 (AMD), MI250X (AMD)", "only NVIDIA GPUs run them", "name NVIDIA GPUs"}, nil},
		{"dataset merge", []string{"dataset", "merge", "--out", "x"}, 2, []string{"smart dataset merge: give the data sets", "Run 'smart dataset merge --help' for usage."}, nil},
		{"dataset stats bad flag", []string{"dataset", "stats", "--bogus"}, 2, []string{"Run 'smart dataset stats --help' for usage."}, nil},
		{"campaign status bad flag", []string{"campaign", "status", "--bogus"}, 2, []string{"Run 'smart campaign status --help' for usage."}, nil},
		{"campaign negative unit", []string{"campaign", "run", "--backend", "sim", "--gpu", "h100-sxm", "--per-unit", "-1"}, 2, []string{"--per-unit -1: give at least 1 variant a unit"}, nil},
		{"bench negative unit", []string{"bench", "--backend", "sim", "--random", "2", "--dims", "2", "--per-unit", "-2", "--out", "x"}, 2, []string{"--per-unit -2: give at least 1 variant a unit"}, nil},
		{"tune negative unit", []string{"tune", "j2d5pt", "--evaluator", "sim", "--per-unit", "-1"}, 2, []string{"--per-unit -1: give at least 1 variant a unit"}, nil},
		{"transfer negative top", []string{"transfer", "--from", "a.json", "--to", "a4000", "--top", "-3"}, 2, []string{"--top -3: print at least 1 setting"}, nil},
		{"transfer budget 0", []string{"transfer", "--from", "a.json", "--to", "a4000", "--budget", "0"}, 2, []string{"--budget 0: ask for at least 1 setting to measure"}, nil},
		{"transfer budget and -o", []string{"transfer", "--from", "a.json", "--to", "a4000", "--budget", "4", "-o", "x.json"}, 2, []string{"-o and --dataset have nothing to write"}, nil},
		{"predict samples -5", []string{"predict", "--gpu", "a100", "j2d5pt", "--samples", "-5"}, 2, []string{"--samples -5: score 1 to 1048576 settings\n"}, nil},
	} {
		t.Run(c.name, c.check)
	}
}

// TestHelpTells: what the help and the tables say matches what the program does.
func TestHelpTells(t *testing.T) {
	_, out, _ := runCLI(t, "", "predict", "--help")
	i := strings.Index(out, "-candidates")
	help := out[i : i+strings.Index(out[i:], "-catalog")]
	if strings.Contains(help, "(default 3)") || !strings.Contains(help, "(unset: 3,") || !strings.Contains(help, "every OC)") {
		t.Errorf("predict --help on --candidates:\n%s", help)
	}
	code, out, errs := runCLI(t, "", "eval", "../../data/models/runtime-3d.smartmodel.gz", "--data", "../../data/measured/h100-sxm/classic")
	if code != 0 || !strings.Contains(out, "pick share  problems") || !strings.Contains(out, "\nproblems: the picks pick share averages: one per stencil") {
		t.Errorf("eval: exit %d, stderr %q; the table's legend does not explain problems:\n%s", code, errs, out)
	}
}

// TestGridWithoutRoom: on a grid too small for any OC's block, estimate and space say what grid
// has room, not to try another OC or GPU, which cannot help.
func TestGridWithoutRoom(t *testing.T) {
	f := writeFiles(t, map[string]string{"tiny.json": `{"dims":2,"grid":[3,3],"offsets":[[0,0],[1,0],[-1,0],[0,1],[0,-1]]}`})
	for _, args := range [][]string{
		{"estimate", f["tiny.json"], "--gpu", "a100", "--oc", "BASE"},
		{"space", f["tiny.json"], "--oc", "ST", "--sample", "1"},
	} {
		code, _, errs := runCLI(t, "", args...)
		if code != 1 || !strings.Contains(errs, "the grid leaves an interior of 1x1 points") ||
			!strings.Contains(errs, "a grid of at least 34 points along x") || strings.Contains(errs, "another --oc") {
			t.Errorf("smart %s: exit %d, stderr %q; want exit 1 naming the grid that has room and no other OC to try", args[0], code, errs)
		}
	}
}

// TestDashIsNoOutputFile: - given to a flag that writes a file is refused, not taken as a file
// named -; the flags whose usage says - is standard output take it.
func TestDashIsNoOutputFile(t *testing.T) {
	for _, args := range [][]string{
		{"recommend", "../../data/stencils/j2d5pt.json", "--gpus", "a100", "--html", "-"},
		{"tune", "../../data/stencils/j2d5pt.json", "--evaluator", "sim", "--method", "random", "--budget", "2", "--trace", "-"},
		{"calibrate", "--data", "../../data/measured/h100-sxm/classic", "-o", "-"},
	} {
		code, _, errs := runCLI(t, "", args...)
		if flag := args[len(args)-2]; code != 2 || !strings.HasPrefix(errs, "smart "+args[0]+": "+flag+" -: give a file name") {
			t.Errorf("smart %s %s -: exit %d, stderr %q; want a usage error", args[0], flag, code, errs)
		}
		if _, err := os.Stat("-"); err == nil {
			os.Remove("-")
			t.Errorf("smart %s wrote a file named -", args[0])
		}
	}
	if code, out, errs := runCLI(t, "", "generate", "--shape", "j2d5pt", "--out", "-"); code != 0 || !strings.Contains(out, `"smart-stencil/1"`) {
		t.Errorf("generate --out -: exit %d, %s", code, errs)
	}
}
