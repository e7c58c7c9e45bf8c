package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"smart/data"
	"smart/dataset"
	"smart/internal/testctx"
	"smart/models"
	"smart/predict"
)

// readmeStencil is the file of the README's first command, from this package's directory.
const readmeStencil = "../../data/stencils/j3d7pt.json"

// TestPredictEndToEnd runs the README's first command and then the smart codegen command it
// prints, so the setting it recommends is one the code generator accepts.
func TestPredictEndToEnd(t *testing.T) {
	code, out, errs := runCLI(t, "", "predict", "--gpu", "a100", readmeStencil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"j3d7pt: 3-D, order 1, 7 points", "on A100-40GB", "OC classes, most probable first",
		"simulated: analytic model, no measurements of this GPU", "=> use ", "The GPUs the models were trained on and those with a price", "<- asked",
		"--all-gpus adds every other catalogued GPU", "trained on"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The README shows this output whole, run from the repository root: it must be what the
	// command prints.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "$ smart predict --gpu a100 data/stencils/j3d7pt.json\n"
	_, shown, ok := strings.Cut(string(readme), prompt)
	fromRoot := strings.ReplaceAll(out, readmeStencil, "data/stencils/j3d7pt.json") // the codegen line names the file
	if shown, _, _ = strings.Cut(shown, "```"); !ok || shown != fromRoot {
		t.Errorf("the README's example of %q differs from the output:\n%s", strings.TrimSpace(prompt), out)
	}
	m := regexp.MustCompile(`smart codegen (\S+) --gpu (\S+) --oc (\S+) --setting (\S+) -o (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no codegen line in\n%s", out)
	}
	cu := filepath.Join(t.TempDir(), m[5])
	code, _, errs = runCLI(t, "", "codegen", m[1], "--gpu", m[2], "--oc", m[3], "--setting", m[4], "-o", cu)
	if code != 0 {
		t.Fatalf("the printed codegen command fails (exit %d): %s", code, errs)
	}
	if src, err := os.ReadFile(cu); err != nil || !bytes.Contains(src, []byte("__global__")) {
		t.Errorf("codegen wrote no kernel: %v", err)
	}

	// The printed smart bench command times every candidate (here with the analytic model).
	bench := regexp.MustCompile(`(?m)^   smart bench (.*)$`).FindStringSubmatch(out)
	if bench == nil {
		t.Fatalf("no smart bench line in\n%s", out)
	}
	args := strings.Fields(bench[1])
	for i, a := range args {
		if a == "--out" {
			args[i+1] = filepath.Join(t.TempDir(), args[i+1])
		}
	}
	code, _, errs = runCLI(t, "", append(append([]string{"bench"}, args...), "--backend", "sim", "--gpu", "A100-40GB")...)
	if code != 0 {
		t.Fatalf("the printed bench command fails (exit %d): %s", code, errs)
	}
	_, rows, err := dataset.ReadAll(args[len(args)-1])
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows, %v; want one per candidate", len(rows), err)
	}
	for _, m := range rows {
		if !m.OK() {
			t.Errorf("candidate %s %s: %s %s", m.OC, m.Setting, m.Status, m.Error)
		}
	}
}

// TestPredictUserGPU: on a GPU a user's catalogue file describes, the codegen command predict
// prints passes the file on, and runs as printed (without it codegen knows no such GPU).
func TestPredictUserGPU(t *testing.T) {
	file := filepath.Join(t.TempDir(), "my gpus.json")
	gpu := `{"format":"smart-gpus/1","gpus":[{"name":"MyH100","vendor":"NVIDIA","arch":"Hopper","compute_capability":"9.0","sms":114,` +
		`"memory_gb":80,"bandwidth_gbs":2000,"l2_mb":50,"shared_per_sm_kb":228,"shared_per_block_kb":227,"regs_per_sm":65536,` +
		`"regs_per_block":65536,"max_regs_per_thread":255,"max_threads_per_sm":2048,"max_threads_per_block":1024,"max_blocks_per_sm":32,` +
		`"fp64_tflops":26,"fp32_tflops":51,"boost_clock_mhz":1755,"constant_memory_kb":64,"warp_size":32,"price":null,"sources":{"*":"a test"}}]}`
	if err := os.WriteFile(file, []byte(gpu), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "predict", "--gpu", "MyH100", "--catalog", file, readmeStencil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := regexp.MustCompile(`smart codegen (\S+) --gpu (\S+) --oc (\S+) --setting (\S+) --catalog '(.+)' -o (\S+)`).FindStringSubmatch(out)
	if m == nil || m[2] != "MyH100" || m[5] != file {
		t.Fatalf("the codegen line does not pass %s on:\n%s", file, out)
	}
	code, _, errs = runCLI(t, "", "codegen", m[1], "--gpu", m[2], "--oc", m[3], "--setting", m[4], "--catalog", m[5], "-o", filepath.Join(t.TempDir(), m[6]))
	if code != 0 {
		t.Fatalf("the printed codegen command fails (exit %d): %s", code, errs)
	}
}

// TestPredictBatchJSON predicts a directory of two stencils: one JSON object each.
func TestPredictBatchJSON(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"j2d5pt", "j3d13pt"} {
		b, _ := data.StencilFile(name)
		os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644)
	}
	code, out, errs := runCLI(t, "", "predict", "--gpu", "T4", "--json", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	var got []string
	for {
		var p predict.Prediction
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.GPU != "T4" || p.Best == nil || p.Best.Source.Basis != predict.BasisTransfer || p.Best.Scaled == nil || p.Best.Scaled.GPU != "H100-SXM" || len(p.GPUs) == 0 {
			t.Errorf("%s: %+v", p.Stencil.Name, p)
		}
		got = append(got, p.Stencil.Name)
	}
	if strings.Join(got, ",") != "j2d5pt,j3d13pt" {
		t.Errorf("stencils %v", got)
	}
	for _, c := range []struct{ flag, times string }{
		{"--transfer=true", "(times on T4: trained on measurements of the H100-SXM, not of this GPU; each time scaled by the literature-constant analytic model's ratio of its setting on the two; embedded measured/h100-sxm/models/runtime-2d.smartmodel, embedded measured/h100-sxm/models/runtime-3d.smartmodel)"},
		{"--transfer=false", "(times on T4: simulated: analytic model, no measurements of this GPU; embedded runtime-2d.smartmodel, embedded runtime-3d.smartmodel)"},
	} {
		code, out, errs = runCLI(t, "", "predict", "--gpu", "T4", c.flag, dir)
		rows := regexp.MustCompile(`(?m)^(j2d5pt|j3d13pt) +T4 `).FindAllString(out, -1)
		if code != 0 || len(rows) != 2 || !strings.HasPrefix(out, "stencil ") || !strings.Contains(out, c.times) {
			t.Errorf("rows %s (exit %d, %s):\n%s", c.flag, code, errs, out)
		}
	}
}

// TestPredictBatchGoesOn: a stencil of a directory that cannot be predicted (a grid with no room
// for a block) does not cost the others: their rows, and the error naming the file, exit 1;
// likewise for recommend, whose HTML report holds the others.
func TestPredictBatchGoesOn(t *testing.T) {
	dir := t.TempDir()
	b, _ := data.StencilFile("j2d5pt")
	os.WriteFile(filepath.Join(dir, "a.json"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"dims": 2, "offsets": [[0,0],[1,0],[-1,0]], "grid": [8, 8]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{`), 0o644) // unreadable: the others go on too
	code, out, errs := runCLI(t, "", "predict", "--gpu", "a100", dir)
	if code != 1 || !regexp.MustCompile(`(?m)^j2d5pt +A100-40GB `).MatchString(out) || !strings.Contains(errs, "b.json: ") || !strings.Contains(errs, "holds 16 of the 32 threads of a warp") ||
		!strings.Contains(errs, "c.json: invalid JSON") {
		t.Errorf("predict: exit %d, stdout:\n%s\nstderr: %s", code, out, errs)
	}
	page := filepath.Join(t.TempDir(), "r.html")
	code, out, errs = runCLI(t, "", "recommend", "--gpus", "a100,t4", "--html", page, dir)
	html, _ := os.ReadFile(page)
	if code != 1 || !regexp.MustCompile(`(?m)^j2d5pt +A100-40GB `).MatchString(out) || !strings.Contains(errs, "b.json: ") || !strings.Contains(errs, "c.json: invalid JSON") || !strings.Contains(string(html), "j2d5pt") ||
		!regexp.MustCompile(`(?s)Not answered.*b\.json: `).Match(html) || !regexp.MustCompile(`(?s)Not answered.*c\.json: invalid JSON`).Match(html) {
		t.Errorf("recommend: exit %d, stdout:\n%s\nstderr: %s", code, out, errs)
	}
}

func TestPredictErrorsCLI(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"dims": 3, "offsets": [[0,0,0],[1,0]]}`), 0o644)
	order5 := filepath.Join(dir, "o5.json")
	os.WriteFile(order5, []byte(`{"dims": 2, "offsets": [[0,0],[5,0],[-5,0]]}`), 0o644)
	good, err := data.ModelFile("runtime-3d.smartmodel")
	if err != nil {
		t.Fatal(err)
	}
	newer := bytes.Clone(good)
	binary.LittleEndian.PutUint32(newer[len(models.Magic):], models.FormatVersion+1)
	binary.LittleEndian.PutUint32(newer[len(newer)-4:], crc32.ChecksumIEEE(newer[:len(newer)-4]))
	newerFile := filepath.Join(dir, "newer.model")
	os.WriteFile(newerFile, newer, 0o644)
	copy3d := filepath.Join(dir, "rt3.model")
	os.WriteFile(copy3d, good, 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown GPU", []string{"predict", "--gpu", "a1000", readmeStencil}, 2, `unknown GPU "a1000"; did you mean`},
		{"malformed stencil", []string{"predict", "--gpu", "a100", bad}, 1, `bad.json: field "offsets[1]": has 2 coordinates; a 3-D offset has 3`},
		{"model of another version", []string{"predict", "--gpu", "a100", "--model", newerFile, readmeStencil}, 1, "model file format version 2 is newer than this smart reads (1); upgrade smart"},
		{"AMD GPU", []string{"predict", "--gpu", "mi250x", readmeStencil}, 2, "only NVIDIA GPUs run them"},
		{"model of other stencils", []string{"predict", "--gpu", "a100", "--model", "../../data/models/runtime-2d.smartmodel.gz", readmeStencil}, 2, "trained on 2-D stencils; none of the stencils given is 2-D"},
		{"two models of one slot", []string{"recommend", "--model", "../../data/models/runtime-3d.smartmodel.gz", "--model", copy3d, readmeStencil}, 2, "are both runtime models of 3-D stencils"},
		{"one model twice", []string{"recommend", "--model", copy3d, "--model", copy3d, readmeStencil}, 2, "is given twice"},
		{"no stencil", []string{"predict", "--gpu", "a100"}, 2, "give a stencil file"},
		{"stdin twice", []string{"predict", "--gpu", "a100", "-", "-"}, 1, `"-" (standard input) is given twice; it can be read once`},
		{"both steps and hours", []string{"recommend", "--steps", "5", "--hours", "1", readmeStencil}, 2, "--hours: price a number of steps or of hours, not both"},
		{"zero hours", []string{"recommend", "--hours", "0", readmeStencil}, 2, "--hours 0: must be positive"},
		{"an empty report name", []string{"recommend", "--html", "", readmeStencil}, 2, "--html \"\": names no file"},
		{"a missing model file", []string{"predict", "--gpu", "a100", "--model", "/nonexistent.model", readmeStencil}, 2, "--model /nonexistent.model: model file /nonexistent.model: no such file"},
		{"samples beyond the bound", []string{"predict", "--gpu", "a100", "--samples", "1000000000", readmeStencil}, 2, "--samples 1000000000: score 1 to 1048576 settings"},
		{"hours beyond a century", []string{"recommend", "--hours", "1e308", readmeStencil}, 2, "--hours 1e+308: give at most 876600 (a century)"}, // +Inf steps broke --json
		{"unknown GPU to rank", []string{"recommend", "--gpus", "a100,nosuch", readmeStencil}, 2, `--gpus: unknown GPU "nosuch"`},
		{"empty GPU", []string{"predict", "--gpu", "", readmeStencil}, 2, `--gpu "": names no GPU`},
		{"empty GPU you have", []string{"recommend", "--have", "", readmeStencil}, 2, `--have "": names no GPU`},
		{"no GPU to rank", []string{"recommend", "--gpus", ",", readmeStencil}, 2, `--gpus ",": names no GPU`},
		{"empty GPUs to rank", []string{"recommend", "--gpus", "", readmeStencil}, 2, `--gpus "": names no GPU`},
		{"unknown GPU you have", []string{"recommend", "--have", "a1000", readmeStencil}, 2, `--have: unknown GPU "a1000"; did you mean`},
		{"unknown GPU before the stencils", []string{"recommend", "--have", "nosuch", "nosuchfile.json"}, 2, `unknown GPU "nosuch"`},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errs, c.code, c.want)
		}
	}
	// An order no model reads is answered by the analytic model alone, which the output says.
	code, out, errs := runCLI(t, "", "predict", "--gpu", "a100", order5)
	for _, want := range []string{"OC classes: none predicted", "the analytic model alone", "has order 5; model embedded runtime-2d.smartmodel was trained on 2-D stencils of orders 1-4"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("order beyond the models: exit %d, stderr %q; want exit 0 and %q in:\n%s", code, errs, want, out)
		}
	}
}

// TestRecommendHTML writes the HTML report and, where Chromium is installed, renders it
// headless and checks the screenshot shows the charts: a tall page with the bars' colours.
func TestRecommendHTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	code, out, errs := runCLI(t, "", "recommend", readmeStencil, "--have", "v100", "--steps", "100000", "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"<- fastest", "most cost-efficient", "(yours)", "than your V100", "priced for 100000 steps"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// An unwritable report is refused before any prediction; a NaN workload is a usage error.
	if code, out, errs := runCLI(t, "", "recommend", readmeStencil, "--html", filepath.Join(dir, "no", "r.html")); code != 1 || out != "" || !strings.Contains(errs, "does not exist") {
		t.Errorf("unwritable --html: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runCLI(t, "", "recommend", readmeStencil, "--hours", "NaN"); code != 2 {
		t.Errorf("--hours NaN: exit %d, stderr %q; want 2", code, errs)
	}
	html, err := os.ReadFile(page)
	if err != nil || bytes.Count(html, []byte("<svg")) != 3 {
		t.Fatalf("report: %v, %d charts", err, bytes.Count(html, []byte("<svg")))
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed: the report is not rendered (apt-get install chromium)")
	}
	shot := filepath.Join(dir, "report.png")
	// A hung browser fails before the test binary's deadline rather than stall the run.
	cmd := exec.CommandContext(testctx.Context(t), chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size=1280,2200", "--screenshot="+shot, "file://"+page)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, b)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2200 {
		t.Fatalf("screenshot is %v", b)
	}
	// The bars: the fastest's green, your GPU's orange, the others' blue (report.go's colours);
	// the charts span the page's column, so the longest blue bar reaches past three quarters
	// of the window.
	for name, c := range map[string]color.RGBA{"green": {0x2c, 0xa0, 0x2c, 0xff}, "orange": {0xff, 0x7f, 0x0e, 0xff}, "blue": {0x1f, 0x77, 0xb4, 0xff}} {
		n, right := countColour(img, c)
		if n < 200 {
			t.Errorf("the screenshot has %d %s pixels; the charts did not render", n, name)
		}
		if name == "blue" && right < 3*img.Bounds().Dx()/4 {
			t.Errorf("the longest blue bar ends at x = %d of %d; the charts are not the page's width", right, img.Bounds().Dx())
		}
	}
}

// countColour counts the pixels of img near the colour want and finds the rightmost.
func countColour(img image.Image, want color.RGBA) (n, right int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, want.R) && near(g, want.G) && near(bl, want.B) {
				n, right = n+1, max(right, x)
			}
		}
	}
	return n, right
}

func near(v uint32, c uint8) bool {
	d := int(v>>8) - int(c)
	return d >= -3 && d <= 3
}

// The table of predict and the GPUs of recommend keep to those the models were trained on and
// those with a price unless --all-gpus; long names widen the GPU column.
func TestPredictAllGPUs(t *testing.T) {
	code, out, errs := runCLI(t, "", "predict", "--gpu", "a100", "j2d9pt")
	if code != 0 || strings.Contains(out, "K40") || !strings.Contains(out, "H200") || !strings.Contains(out, "--all-gpus adds") {
		t.Errorf("default table: exit %d: %s\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "", "predict", "--gpu", "a100", "--all-gpus", "j2d9pt")
	if code != 0 || !strings.Contains(out, "Every catalogued GPU") || !strings.Contains(out, "\n  K40   ") || !strings.Contains(out, "\n  RTX-PRO-6000-Blackwell Blackwell ") {
		t.Errorf("--all-gpus: exit %d: %s\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "", "recommend", "j2d9pt", "--all-gpus", "--have", "tesla k80")
	if code != 0 || !strings.Contains(out, " K80 ") || !strings.Contains(out, "(yours)") || !strings.Contains(out, " GH200-144GB ") {
		t.Errorf("recommend --all-gpus: exit %d: %s\n%s", code, errs, out)
	}
	if code, _, errs = runCLI(t, "", "recommend", "j2d9pt", "--all-gpus", "--gpus", "a100"); code != 2 || !strings.Contains(errs, "--all-gpus") {
		t.Errorf("--gpus with --all-gpus: exit %d: %s", code, errs)
	}
}
