package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"smart"
	"smart/app"
	"smart/dataset"
	"smart/transfer"
)

const convDir = "../../data/kernel-tuner/convolution_milo/"

// partialCache writes the settings given, as the A4000's cache has them.
func partialCache(t *testing.T, settings []transfer.Variant) string {
	t.Helper()
	return editedA4000(t, func(c map[string]any) {
		cache := c["cache"].(map[string]any)
		keep := map[string]any{}
		for _, v := range settings {
			var vals []string
			for _, k := range c["tune_params_keys"].([]any) {
				vals = append(vals, strconv.Itoa(v.Setting[k.(string)]))
			}
			key := strings.Join(vals, ",")
			keep[key] = cache[key]
		}
		c["cache"] = keep
	})
}

func TestTransferBudgetShotsAndCache(t *testing.T) {
	from := convDir + "A100.json.gz," + convDir + "A6000.json.gz"
	code, stdout, stderr := runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--budget", "8", "--json")
	if code != 0 {
		t.Fatalf("--budget: exit %d: %s", code, stderr)
	}
	var shots []transfer.Variant
	if err := json.Unmarshal([]byte(stdout), &shots); err != nil || len(shots) != 8 {
		t.Fatalf("--budget 8 printed %d settings (%v)", len(shots), err)
	}
	out := filepath.Join(t.TempDir(), "pred.json")
	code, stdout, stderr = runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--shots", partialCache(t, shots), "-o", out, "--top", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Eight shots bound their range, a 78% interval (7/9), not the 80% asked: nine would.
	for _, want := range []string{"RTX-A4000, predicted from A100-40GB, RTX-A6000", "8 settings measured on RTX-A4000 correct", "78% interval", "8 shots bound no more than this level; 9 bound 80%", "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	f, err := dataset.ReadKernelTuner(out, dataset.ImportOptions{})
	if err != nil || len(f.Rows) != 4362 {
		t.Fatalf("the cache written reads back with %d rows: %v", len(f.Rows), err)
	}
	// Its own cache is replaced; a file it did not write is refused without --force, and
	// nothing is lost.
	if code, _, stderr = runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "-o", out); code != 0 {
		t.Errorf("replacing its own cache: exit %d, %s", code, stderr)
	}
	notes := filepath.Join(t.TempDir(), "notes.json")
	os.WriteFile(notes, []byte("{}"), 0o644)
	code, _, stderr = runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "-o", notes)
	after, _ := os.ReadFile(notes)
	if code != 2 || !strings.Contains(stderr, "smart transfer: -o "+notes+": the file exists and is not") || !strings.Contains(stderr, "give --force") || string(after) != "{}" {
		t.Errorf("overwrite without --force: exit %d, %s", code, stderr)
	}
}

// TestTransferWritesBothOrNeither: a --dataset directory that holds a data set already is
// refused before the -o cache is written, and the refusal names the flag; a cache that fails
// after the data set was written leaves no data set behind.
func TestTransferWritesBothOrNeither(t *testing.T) {
	from := convDir + "A100.json.gz," + convDir + "A6000.json.gz"
	dir := t.TempDir()
	ds, out := filepath.Join(dir, "ds"), filepath.Join(dir, "pred.json")
	if code, _, stderr := runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--dataset", ds); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A name to change, as a -o file smart did not write is: a usage error.
	code, _, stderr := runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--dataset", ds, "-o", out)
	if code != 2 || !strings.Contains(stderr, "--dataset "+ds+": "+ds+" already holds a data set") || !strings.Contains(stderr, "smart transfer --help") {
		t.Errorf("exit %d, stderr %q; want 2 and the refusal of --dataset", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the -o cache was written though the data set was refused (%v)", err)
	}

	// A cache that fails as it is written, after the data set (a full disk: /dev/full passes
	// every check and refuses the write), takes the data set with it, the directories made
	// for it too, and the same command with a cache that can be written then succeeds.
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here:", err)
	}
	ds = filepath.Join(dir, "new", "deeper", "ds")
	code, _, stderr = runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--dataset", ds, "-o", "/dev/full")
	if code != 1 || !strings.Contains(stderr, "-o /dev/full: ") || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("a cache on a full disk: exit %d, stderr %q; want 1 and the write's failure", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the data set, or the directories made for it, left behind when the cache failed (%v)", err)
	}
	if code, _, stderr := runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--dataset", ds, "-o", out); code != 0 {
		t.Fatalf("the same command with a cache that can be written: exit %d: %s", code, stderr)
	}
	if _, rows, err := dataset.ReadAll(ds); err != nil || len(rows) == 0 {
		t.Errorf("the data set written: %d rows, %v", len(rows), err)
	}
	if _, err := dataset.ReadKernelTuner(out, dataset.ImportOptions{}); err != nil {
		t.Errorf("the cache written: %v", err)
	}
	// An empty directory given for the data set stays, empty, when the cache fails.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if code, _, stderr := runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--dataset", empty, "-o", "/dev/full"); code != 1 {
		t.Errorf("a cache on a full disk: exit %d, stderr %q; want 1", code, stderr)
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("the empty directory given for the data set: %d entries, %v; want it there and empty", len(entries), err)
	}
}

// TestTuneBenchOnPredictions: a cache of smart's predictions saved under the name of a cache
// Kernel Tuner was measured on is compared as predicted, without Kernel Tuner's figure of that
// cache.
func TestTuneBenchOnPredictions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "convolution_milo", "A4000.json")
	os.Mkdir(filepath.Dir(out), 0o755)
	if code, _, stderr := runCLI(t, "", "transfer", "--from", convDir+"A100.json.gz,"+convDir+"A6000.json.gz", "--to", "rtx-a4000", "-o", out); code != 0 {
		t.Fatalf("transfer: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", "tune-bench", "--methods", "random", "--random-seeds", "1", "--budget", "10", "--ratios", "", "--json", out)
	if code != 0 {
		t.Fatalf("tune-bench: exit %d: %s", code, stderr)
	}
	var cmp app.Comparison
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil || len(cmp.Cases) != 1 {
		t.Fatalf("%v: %s", err, stdout)
	}
	if c := cmp.Cases[0]; c.Source != smart.Predicted || c.Name != "convolution_milo/A4000 (predicted)" || c.KernelTuner != nil {
		t.Errorf("case %+v; want convolution_milo/A4000 (predicted), predicted, without Kernel Tuner's figure", c)
	}
}

func TestTransferRefuses(t *testing.T) {
	a100 := convDir + "A100.json.gz"
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no --to", []string{"--from", a100}, 2, "--to"},
		{"unknown GPU without shots", []string{"--from", a100, "--to", "quantum-9000"}, 2, "--shots"},
		{"file without its device", []string{"--from", convDir + "MI250X.json.gz", "--to", "a100"}, 2, "@GPU"},
		{"missing file", []string{"--from", "nope.json", "--to", "a100"}, 1, "nope.json"},
		{"source GPU not catalogued", []string{"--from", convDir + "MI250X.json.gz@Foo 9000," + a100, "--to", "a6000"}, 2, `the catalogue lacks its device "Foo 9000"`},
		{"bad level", []string{"--from", a100, "--to", "a100", "--level", "2"}, 2, "--level"},
		{"the target among the sources", []string{"--from", a100 + "," + convDir + "A6000.json.gz", "--to", "a100"}, 2, "--from: " + a100 + " holds measurements of the target A100-40GB itself"},
		{"shots of another GPU", []string{"--from", a100, "--to", "a6000", "--shots", convDir + "A4000.json.gz"}, 2, "holds measurements of RTX-A4000, not of the target RTX-A6000"},
		{"shots of a catalogued GPU for one it lacks", []string{"--from", a100, "--to", "my-gpu", "--shots", convDir + "A4000.json.gz"}, 2, "holds measurements of RTX-A4000, a catalogued GPU, not of my-gpu: predict for RTX-A4000 as the target"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", append([]string{"transfer"}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d (want %d), stderr %q lacks %q", code, c.code, stderr, c.want)
			}
		})
	}
}

// TestTransferStencilDataSet: a stencil's H100 data set moves to the H200 by the calibrated
// analytic model's ratio of each setting, and the data set written holds every setting as
// predicted, with the stencil.
func TestTransferStencilDataSet(t *testing.T) {
	src := "../../data/measured/h100-sxm/random/j3d19pt"
	out := filepath.Join(t.TempDir(), "h200")
	code, stdout, stderr := runCLI(t, "", "transfer", "--from", src, "--to", "h200", "--ratio", "analytic", "--dataset", out, "--top", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "scaled to H200 by the calibrated analytic model's ratio") {
		t.Errorf("basis:\n%s", stdout)
	}
	meta, rows, err := dataset.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	_, srcRows, err := dataset.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]bool{}
	for _, m := range srcRows {
		if m.Source == smart.Measured {
			settings[m.OC.String()+" "+m.Setting.String()] = true
		}
	}
	if len(rows) != len(settings) || len(meta.Sources) != 1 || meta.Sources[0] != smart.Predicted {
		t.Fatalf("%d rows (sources %v), want the %d measured settings as predicted", len(rows), meta.Sources, len(settings))
	}
	for _, m := range rows {
		if m.GPU != "H200" || !strings.HasPrefix(m.Device, "transfer from H100-SXM") {
			t.Fatalf("row %+v", m)
		}
	}
	if _, err := dataset.ReadStencil(out, rows[0].StencilID); err != nil {
		t.Errorf("the stencil is not in the data set: %v", err)
	}
}

// TestTransferStencilDefaultRatio: by default a stencil moves by the calibrated analytic ratio
// between GPUs of one architecture (H100 to H200) and by bandwidth and FLOPS across (H100 to
// A100); --ratio hardware and --ratio analytic choose either anywhere.
func TestTransferStencilDefaultRatio(t *testing.T) {
	src := "../../data/measured/h100-sxm/random/j3d19pt"
	for _, c := range []struct {
		to, ratio  string
		calibrated bool
	}{{"h200", "", true}, {"a100", "", false}, {"h200", "hardware", false}, {"a100", "analytic", true}} {
		args := []string{"transfer", "--from", src, "--to", c.to, "--top", "1"}
		if c.ratio != "" {
			args = append(args, "--ratio", c.ratio)
		}
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if got := strings.Contains(stdout, "by the calibrated analytic model's ratio"); got != c.calibrated {
			t.Errorf("%v: calibrated ratio %v, want %v:\n%s", args, got, c.calibrated, stdout)
		}
	}
}

// TestTuneOnPredictions: tune replaying a cache of smart's predictions says its times are
// predicted, not imported measurements.
func TestTuneOnPredictions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "A4000-predicted.json")
	if code, _, stderr := runCLI(t, "", "transfer", "--from", convDir+"A100.json.gz,"+convDir+"A6000.json.gz", "--to", "rtx-a4000", "-o", out); code != 0 {
		t.Fatalf("transfer: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", "tune", "--evaluator", "replay:"+out, "--method", "random", "--budget", "5")
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, stderr)
	}
	if all := stdout + stderr; !strings.Contains(all, "as measured on RTX-A4000 (predicted)") || strings.Contains(all, "(imported)") {
		t.Errorf("tune on a predicted cache; want it called predicted, not imported:\n%s", all)
	}
}

// convCache reads the cache convDir+name.json.gz.
func convCache(t *testing.T, name string) map[string]any {
	t.Helper()
	f, err := os.Open(convDir + name + ".json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.NewDecoder(z).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// editedA4000 writes the A4000's cache, as edit changes it, to a file of its own.
func editedA4000(t *testing.T, edit func(c map[string]any)) string {
	t.Helper()
	c := convCache(t, "A4000")
	edit(c)
	b, _ := json.Marshal(c)
	path := filepath.Join(t.TempDir(), "A4000-shots.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// firstSettings keeps n of the cache's settings, and passes each kept record to edit (nil: none).
func firstSettings(n int, edit func(key string, rec map[string]any)) func(c map[string]any) {
	return func(c map[string]any) {
		cache := c["cache"].(map[string]any)
		keep := map[string]any{}
		for _, key := range slices.Sorted(maps.Keys(cache))[:n] {
			rec := cache[key].(map[string]any)
			if edit != nil {
				edit(key, rec)
			}
			keep[key] = rec
		}
		c["cache"] = keep
	}
}

// TestTransferShotsContentsExit1: shots whose contents cannot be used (every run failed, another
// kernel, another problem size, none at all) are a failure of a well-formed request, exit 1
// without the usage hint, as a missing file is.
func TestTransferShotsContentsExit1(t *testing.T) {
	from := convDir + "A100.json.gz," + convDir + "A6000.json.gz"
	for _, tc := range []struct {
		name string
		edit func(c map[string]any)
		want string
	}{
		{"every run failed", firstSettings(5, func(_ string, rec map[string]any) { rec["time"] = "RuntimeFailedConfig" }), "holds no successful run of kernel convolution_kernel"},
		{"another kernel", func(c map[string]any) { firstSettings(5, nil)(c); c["kernel_name"] = "other_kernel" }, "holds kernel other_kernel, not the sources' kernel convolution_kernel"},
		{"another problem size", func(c map[string]any) { firstSettings(5, nil)(c); c["problem_size"] = []int{1024, 1024} }, "measured problem size [1024 1024]"},
		{"no settings", firstSettings(0, nil), "A4000-shots.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", "transfer", "--from", from, "--to", "rtx-a4000", "--shots", editedA4000(t, tc.edit))
			if code != 1 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "--help") {
				t.Errorf("exit %d, stderr %q; want 1, %q and no usage hint", code, stderr, tc.want)
			}
		})
	}
}

// TestTransferShotsTheSourcesLack: shots at settings the sources lack (block_size_x 17) are
// named on stderr, counted in --json and left out of the -o cache, which then replays as the
// settings it lists.
func TestTransferShotsTheSourcesLack(t *testing.T) {
	shots := editedA4000(t, firstSettings(12, func(key string, rec map[string]any) {
		if rec["block_size_y"].(float64) == 1 && rec["tile_size_x"].(float64) == 1 {
			rec["block_size_x"] = 17
		}
	}))
	var c map[string]any // the keys still name the old block_size_x: rekey them as Kernel Tuner would
	b, _ := os.ReadFile(shots)
	json.Unmarshal(b, &c)
	cache, stray := map[string]any{}, 0
	for key, rec := range c["cache"].(map[string]any) {
		if rec.(map[string]any)["block_size_x"] == 17.0 {
			key = "17" + key[strings.Index(key, ","):]
			stray++
		}
		cache[key] = rec
	}
	if stray == 0 {
		t.Fatal("no shot at block_size_x 17")
	}
	c["cache"] = cache
	b, _ = json.Marshal(c)
	os.WriteFile(shots, b, 0o644)

	out := filepath.Join(t.TempDir(), "pred.json")
	code, stdout, stderr := runCLI(t, "", "transfer", "--from", convDir+"A100.json.gz,"+convDir+"A6000.json.gz", "--to", "rtx-a4000",
		"--shots", shots, "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := fmt.Sprintf("note: %d shots left out: no source holds their settings", stray); !strings.Contains(stderr, want) || !strings.Contains(stderr, "block_size_x=17") {
		t.Errorf("stderr %q lacks %q naming them", stderr, want)
	}
	var p transfer.Prediction
	if err := json.Unmarshal([]byte(stdout), &p); err != nil || p.ShotsLeftOut != stray || p.Shots != 12-stray {
		t.Errorf("--json: %v, %d shots left out and %d taught; want %d and %d", err, p.ShotsLeftOut, p.Shots, stray, 12-stray)
	}
	code, _, stderr = runCLI(t, "", "tune", "--evaluator", "replay:"+out, "--method", "random", "--budget", "3")
	if code != 0 || !strings.Contains(stderr, "4362 settings") || strings.Contains(stderr, fmt.Sprint(4362+stray)) {
		t.Errorf("tune on the cache written: exit %d, stderr %q; want its 4362 settings", code, stderr)
	}
}

// TestTransferSaysWhatItRestsOn: the text, the JSON basis and the -o cache's "smart" object say
// where every source is another vendor's (and give no interval from them), where FLOPS are
// double-precision, and where a file taken as a GPU names another device; one measurement
// under two GPUs' names is refused as tune-bench refuses it.
func TestTransferSaysWhatItRestsOn(t *testing.T) {
	a100, a6000 := convDir+"A100.json.gz", convDir+"A6000.json.gz"
	for _, tc := range []struct {
		name string
		args []string
		want []string // in the text, and in the basis of the JSON and the cache
		not  []string
	}{
		{"NVIDIA sources for an AMD target", []string{"--from", a100 + "," + a6000, "--to", "w6600"},
			[]string{"every source is another vendor's than the target's (AMD)"}, []string{"80% interval"}},
		{"double precision", []string{"--from", a100 + "," + a6000, "--to", "a4000", "--fp64"},
			[]string{"bandwidth and double-precision FLOPS"}, nil},
		{"a file taken as another GPU", []string{"--from", a100 + "@h100-sxm," + a6000, "--to", "a4000"},
			[]string{"the measurements taken as the H100-SXM's name their device NVIDIA A100-PCIE-40GB"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pred.json")
			code, text, stderr := runCLI(t, "", append([]string{"transfer", "--top", "1"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			code, js, stderr := runCLI(t, "", append([]string{"transfer", "--json", "-o", out}, tc.args...)...)
			if code != 0 {
				t.Fatalf("--json -o: exit %d: %s", code, stderr)
			}
			var p transfer.Prediction
			json.Unmarshal([]byte(js), &p)
			var c struct{ Smart struct{ Basis string } }
			b, _ := os.ReadFile(out)
			json.Unmarshal(b, &c)
			for _, w := range tc.want {
				if !strings.Contains(text, w) || !strings.Contains(p.Basis, w) || !strings.Contains(c.Smart.Basis, w) {
					t.Errorf("%q missing: text\n%s\nJSON basis %q\ncache basis %q", w, text, p.Basis, c.Smart.Basis)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(text, w) {
					t.Errorf("text says %q:\n%s", w, text)
				}
			}
		})
	}
	code, _, stderr := runCLI(t, "", "transfer", "--from", a100+","+convDir+"A100_T4.json.gz@a100-80gb", "--to", "a6000")
	if code != 1 || !strings.Contains(stderr, "hold the same settings and times: they are one GPU's measurements") {
		t.Errorf("a cache and its T4 twin as two GPUs: exit %d, stderr %q", code, stderr)
	}
}

// partOf writes the settings from..to (in key order) of the cache convDir+name.json.gz into dir.
func partOf(t *testing.T, dir, name string, from, to int) string {
	t.Helper()
	c := convCache(t, name)
	cache := c["cache"].(map[string]any)
	keep := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(cache))[from:to] {
		keep[key] = cache[key]
	}
	c["cache"] = keep
	b, _ := json.Marshal(c)
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTransferCacheOfPartialSources: sources that each hold part of the kernel's space (a
// search's caches) give a cache of the settings some source holds, which Kernel Tuner's
// simulation mode cannot replay whole: a note says how many it holds, of the space where a
// space.json beside the sources counts it, and the cache's "smart" object counts them. Whole
// sources give no note.
func TestTransferCacheOfPartialSources(t *testing.T) {
	dir := t.TempDir()
	from := partOf(t, dir, "A100", 0, 800) + "," + partOf(t, dir, "A6000", 400, 1200) // 1200 settings
	space, err := os.ReadFile(convDir + "space.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from string
		space      []byte // space.json beside the sources
		note       string // "" for none
		settings   string
		spaceCount string // "" where unknown
	}{
		{"part, no space.json", from, nil, "note: the cache holds the 1200 settings some source holds, of the 10240 that kernel convolution_kernel's tune_params combine", "1200", ""},
		{"part, space.json", from, space, "note: the cache holds 1200 of the 4362 settings of kernel convolution_kernel's space", "1200", "4362"},
		{"whole", convDir + "A100.json.gz," + convDir + "A6000.json.gz", nil, "", "4362", "4362"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "space.json"))
			if c.space != nil {
				os.WriteFile(filepath.Join(dir, "space.json"), c.space, 0o644)
			}
			out := filepath.Join(t.TempDir(), "pred.json")
			code, _, stderr := runCLI(t, "", "transfer", "--from", c.from, "--to", "rtx-a4000", "-o", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if c.note == "" && strings.Contains(stderr, "note: the cache holds") || !strings.Contains(stderr, c.note) {
				t.Errorf("stderr %q; want the note %q", stderr, c.note)
			}
			if c.note != "" && !strings.Contains(stderr, "Kernel Tuner's simulation mode stops at the first setting") {
				t.Errorf("stderr %q does not say where Kernel Tuner's simulation mode stops", stderr)
			}
			b, err := os.ReadFile(out)
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
			if got, n := string(cache.Smart["settings"]), strconv.Itoa(len(cache.Cache)); got != c.settings || n != c.settings {
				t.Errorf(`"settings": %s, %s in the cache; want %s`, got, n, c.settings)
			}
			if got := string(cache.Smart["space_settings"]); got != c.spaceCount {
				t.Errorf(`"space_settings": %q; want %q`, got, c.spaceCount)
			}
		})
	}
}

// TestTransferKeepsFloatSpelling: a float parameter of whole numbers (1.0) is written back as
// Kernel Tuner spells it, in tune_params and in the keys ("32,1.0"), and an integer one stays
// integers, so that the cache's keys are those Kernel Tuner builds.
func TestTransferKeepsFloatSpelling(t *testing.T) {
	dir := t.TempDir()
	var keys []string
	var from []string
	for i, device := range []string{"NVIDIA A100-PCIE-40GB", "NVIDIA RTX A6000"} {
		var recs []string
		for _, bx := range []int{32, 64, 128} {
			for _, scale := range []string{"1.0", "2.0", "4.0"} {
				key := fmt.Sprintf("%d,%s", bx, scale)
				if i == 0 {
					keys = append(keys, key)
				}
				ms := float64(bx)/32 + float64(len(recs)%4) + float64(i)
				recs = append(recs, fmt.Sprintf(`%q:{"block_size_x":%d,"scale":%s,"time":%g,"times":[%g]}`, key, bx, scale, ms, ms))
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("d%d.json", i))
		body := `{"device_name":"` + device + `","kernel_name":"k","tune_params_keys":["block_size_x","scale"],` +
			`"tune_params":{"block_size_x":[32,64,128],"scale":[1.0,2.0,4.0]},"objective":"time","cache":{` + strings.Join(recs, ",") + `}}`
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		from = append(from, path)
	}
	out := filepath.Join(dir, "pred.json")
	if code, _, stderr := runCLI(t, "", "transfer", "--from", strings.Join(from, ","), "--to", "rtx-a4000", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		TuneParams map[string]json.RawMessage            `json:"tune_params"`
		Cache      map[string]map[string]json.RawMessage `json:"cache"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"block_size_x": "[32,64,128]", "scale": "[1.0,2.0,4.0]"} {
		if got := strings.Join(strings.Fields(string(c.TuneParams[name])), ""); got != want {
			t.Errorf("tune_params.%s = %s; want %s", name, got, want)
		}
	}
	if got := slices.Sorted(maps.Keys(c.Cache)); !slices.Equal(got, slices.Sorted(slices.Values(keys))) {
		t.Errorf("keys %v; want %v", got, keys)
	}
	if r := c.Cache["32,1.0"]; string(r["block_size_x"]) != "32" || string(r["scale"]) != "1.0" {
		t.Errorf(`cache["32,1.0"] = %v; want block_size_x 32, scale 1.0`, r)
	}
}

// TestTransferNamesT4Kernel: --kernel names the kernel of a T4 file that names none (Kernel
// Tuner's own), as dataset import's --kernel does.
func TestTransferNamesT4Kernel(t *testing.T) {
	t4 := filepath.Join(t.TempDir(), "A100_T4.json.gz")
	b, err := os.ReadFile(convDir + "A100_T4.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(t4, b, 0o644)
	code, stdout, stderr := runCLI(t, "", "transfer", "--from", t4+"@a100,"+convDir+"A6000.json.gz", "--to", "rtx-a4000", "--kernel", "convolution_kernel", "--top", "1")
	if code != 0 || !strings.Contains(stdout, "the kernel convolution_kernel's measurements on A100-40GB, RTX-A6000") {
		t.Errorf("exit %d, stdout %q, stderr %q; want convolution_kernel predicted from both", code, stdout, stderr)
	}
	// A mistyped name would make the T4 file kernel "convolution" and leave the cache out.
	code, _, stderr = runCLI(t, "", "transfer", "--from", t4+"@a100,"+convDir+"A6000.json.gz", "--to", "rtx-a4000", "--kernel", "convolution", "--top", "1")
	if code != 2 || !strings.Contains(stderr, "--kernel convolution: "+convDir+"A6000.json.gz holds kernel convolution_kernel, not it") {
		t.Errorf("mistyped kernel: exit %d, stderr %q; want exit 2 naming the file left out", code, stderr)
	}
}

// TestTransferJSONHoldsTheFilesValues: where a kernel's parameters hold booleans and strings,
// --json (the prediction, and --budget's list) writes beside each setting (smart's codes) its
// values as the caches hold them, and no OC.
func TestTransferJSONHoldsTheFilesValues(t *testing.T) {
	dir := t.TempDir()
	var from []string
	for _, gpu := range []string{"A100", "A6000"} {
		c := convCache(t, gpu)
		c["tune_params"].(map[string]any)["read_only"] = []any{false, true}
		c["tune_params"].(map[string]any)["use_padding"] = []any{"off", "on"}
		cache := map[string]any{}
		for _, rec := range c["cache"].(map[string]any) {
			r := rec.(map[string]any)
			r["read_only"] = r["read_only"] == 1.0
			r["use_padding"] = map[bool]string{false: "off", true: "on"}[r["use_padding"] == 1.0]
			var key []string
			for _, k := range c["tune_params_keys"].([]any) {
				switch v := r[k.(string)].(type) {
				case bool:
					key = append(key, map[bool]string{false: "False", true: "True"}[v])
				default:
					key = append(key, fmt.Sprint(v))
				}
			}
			cache[strings.Join(key, ",")] = r
		}
		c["cache"] = cache
		b, _ := json.Marshal(c)
		path := filepath.Join(dir, gpu+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		from = append(from, path)
	}
	check := func(what string, settings []map[string]any) {
		t.Helper()
		if len(settings) == 0 {
			t.Fatalf("%s: no settings", what)
		}
		for _, s := range settings {
			_, isBool := s["read_only"].(bool)
			pad, _ := s["use_padding"].(string)
			if !isBool || (pad != "off" && pad != "on") || s["block_size_x"] == nil {
				t.Fatalf("%s: setting %v", what, s)
			}
		}
	}
	type variant struct {
		OC     *string        `json:"oc"`
		Values map[string]any `json:"values"`
	}
	code, stdout, stderr := runCLI(t, "", "transfer", "--from", strings.Join(from, ","), "--to", "rtx-a4000", "--budget", "4", "--json")
	var shots []variant
	if err := json.Unmarshal([]byte(stdout), &shots); code != 0 || err != nil {
		t.Fatalf("--budget: exit %d, %v: %s", code, err, stderr)
	}
	var settings []map[string]any
	for _, v := range shots {
		if v.OC != nil {
			t.Errorf("a Kernel Tuner kernel's setting has an OC: %s", *v.OC)
		}
		settings = append(settings, v.Values)
	}
	check("--budget", settings)
	code, stdout, stderr = runCLI(t, "", "transfer", "--from", strings.Join(from, ","), "--to", "rtx-a4000", "--json")
	var p struct{ Variants []variant }
	if err := json.Unmarshal([]byte(stdout), &p); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, stderr)
	}
	settings = settings[:0]
	for _, v := range p.Variants {
		settings = append(settings, v.Values)
	}
	check("the prediction", settings)
}

// TestTornCacheNoted: a plain cache cut in the middle, as a stopped Kernel Tuner run leaves it,
// is read as Kernel Tuner reads it, and every command that reads it says so: transfer, tune and
// tune-bench, as dataset import does.
func TestTornCacheNoted(t *testing.T) {
	whole, err := dataset.ReadMaybeGzip(convDir + "A100.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(t.TempDir(), "half.json")
	if err := os.WriteFile(half, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	want := half + ": a cache Kernel Tuner had not closed (its run was stopped, or still runs); read as Kernel Tuner reads it, without its last line"
	for _, args := range [][]string{
		{"transfer", "--from", half, "--to", "rtx-a4000", "--top", "1"},
		{"transfer", "--from", half, "--to", "rtx-a4000", "--budget", "2"},
		{"tune", "--evaluator", "replay:" + half, "--method", "random", "--budget", "3", "--seed", "1"},
		{"tune-bench", half, "--methods", "random", "--seeds", "1", "--budget", "20", "--ratios", ""},
		{"dataset", "import", half, "--out", filepath.Join(t.TempDir(), "ds")},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(stderr+stdout, want) {
			t.Errorf("smart %s: exit %d; want a note %q\nstderr %s", strings.Join(args[:2], " "), code, want, stderr)
		}
	}
}

// TestTransferCacheGz: -o NAME.json.gz writes the cache gzip-compressed, as benchmark_hub keeps
// caches, which smart reads back and replaces as its own.
func TestTransferCacheGz(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pred.json.gz")
	for range 2 { // the second replaces the first, a cache smart wrote
		if code, _, stderr := runCLI(t, "", "transfer", "--from", convDir+"A100.json.gz", "--to", "rtx-a6000", "-o", out, "--top", "1"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("%s is not gzip-compressed (%v)", out, err)
	}
	kt, err := dataset.ReadKernelTuner(out, dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if kt.Source != smart.Predicted || len(kt.Rows) != 4362 {
		t.Errorf("read back: source %v, %d rows; want the 4362 predicted settings of the A100's cache", kt.Source, len(kt.Rows))
	}
}
