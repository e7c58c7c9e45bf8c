package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"smart/app"
	"smart/catalog"
	"smart/dataset/gpuinfo"
)

// TestAdvice: a library error reaches the user with the flag or command that answers it, which
// the library (TestLibraryErrorsNameNoFlags at the root) does not name. lib is the library's
// message and advice what the command line adds; the two must be adjacent, advice ending a line.
func TestAdvice(t *testing.T) {
	dir := t.TempDir()
	f := writeFiles(t, map[string]string{
		"o5.json":       `{"dims": 2, "offsets": [[0,0],[5,0],[-5,0]]}`,
		"notamodel.txt": "hello\n",
		"t4.json":       `{"results":[{"configuration":{"a":1},"invalidity":"correct","measurements":[{"name":"time","value":1}]}]}`,
		"nameless.json": ktCache(""),
		"x.json":        ktCache("X"),
		"y.json":        ktCache("Y"),
	})
	unlabelled := filepath.Join(dir, "unlabelled")
	if code, _, errs := runCLI(t, "", benchArgs(unlabelled)...); code != 0 {
		t.Fatalf("bench: %s", errs)
	}
	const noKernelImport = "; put the kernel's space.json (benchmark_hub's format) beside the file, or import the file with smart dataset import --kernel NAME --device GPU --out DIR FILE and give DIR in its place"
	for _, c := range []struct {
		name        string
		args        []string
		code        int
		lib, advice string
	}{
		{"GPU with close names", []string{"predict", "--gpu", "a1000", readmeStencil}, 2,
			`--gpu: unknown GPU "a1000"; did you mean`, "? (smart gpus lists the catalogue; describe a GPU it lacks in a --catalog FILE)"},
		{"GPU unlike any", []string{"recommend", "--gpus", "a100,nosuch", readmeStencil}, 2,
			`--gpus: unknown GPU "nosuch"; the catalogue has`, " (add your own with --catalog FILE)"},
		{"order beyond the models", []string{"tune", f["o5.json"], "--gpu", "a100", "--evaluator", "model:embedded", "--method", "random", "--budget", "4"}, 1,
			"model:embedded: stencil o5 has order 5; model embedded runtime-2d.smartmodel was trained on 2-D stencils of orders 1-4 and reads no farther",
			"; train a model on 2-D stencils of order 5 (smart bench, smart train)"},
		{"not a model file", []string{"predict", "--gpu", "a100", "--model", f["notamodel.txt"], readmeStencil}, 1,
			`not a smart model file (it does not start with "smart-model")`, "; give a file written by smart train"},
		{"runtime model as classifier", []string{"tune", "j3d7pt", "--gpu", "h100", "--evaluator", "sim", "--method", "pipeline",
			"--budget", "4", "--classifier", "../../data/models/runtime-3d.smartmodel.gz"}, 1,
			"the OC classifier is not a selection model built from data sets", " (smart train --task select)"},
		{"select model of unlabelled data", []string{"train", "--task", "select", "--out", filepath.Join(dir, "m"), "--data", unlabelled}, 1,
			"labels.json", " (run smart dataset label " + unlabelled + ")"},
		{"import without a device", []string{"dataset", "import", "--out", filepath.Join(dir, "i1"), f["nameless.json"]}, 1,
			"nameless.json: the file does not name its device", "; name it with --device (the name nvidia-smi or rocm-smi prints, or a catalogue name)"},
		// A T4 file without its kernel: --kernel where the command has it, else a space.json or
		// the data set that dataset import makes of it.
		{"import without a kernel", []string{"dataset", "import", "--device", "X", "--out", filepath.Join(dir, "i2"), f["t4.json"]}, 1,
			"t4.json: a T4 file does not name its kernel and no space.json sits beside it", "; name it with --kernel NAME, or put the kernel's space.json (benchmark_hub's format) beside the file"},
		{"transfer without a kernel", []string{"transfer", "--to", "a100", "--from", f["t4.json"]}, 1,
			"t4.json: a T4 file does not name its kernel and no space.json sits beside it", "; name it with --kernel NAME, or put the kernel's space.json (benchmark_hub's format) beside the file"},
		{"tune without a kernel", []string{"tune", "--evaluator", "replay:" + f["t4.json"], "--method", "random", "--budget", "4"}, 1,
			"t4.json: a T4 file does not name its kernel and no space.json sits beside it", noKernelImport},
		{"tune-bench without a kernel", []string{"tune-bench", f["t4.json"]}, 1,
			"t4.json: a T4 file does not name its kernel and no space.json sits beside it", noKernelImport},
		{"cache of stencils", []string{"transfer", "--to", "h200", "--from", "../../data/measured/h100-sxm/random/j3d19pt", "-o", filepath.Join(dir, "c.json")}, 2,
			"a Kernel Tuner cache needs Kernel Tuner sources; write a data set instead", " with --dataset DIR"},
		{"import of two devices", []string{"dataset", "import", "--out", filepath.Join(dir, "i3"), f["x.json"], f["y.json"]}, 1,
			`the files were measured on 2 devices ("X", "Y")`, "; give --allow-mixed if joining them into one data set is meant"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", c.args...)
			if code != c.code || !strings.Contains(errs, c.lib) || !strings.Contains(errs, c.advice+"\n") {
				t.Errorf("exit %d, stderr %q; want exit %d, %q and %q ending a line", code, errs, c.code, c.lib, c.advice)
			}
			if i, j := strings.Index(errs, c.lib), strings.Index(errs, c.advice); i < 0 || j < i {
				t.Errorf("stderr %q: the advice %q does not follow %q", errs, c.advice, c.lib)
			}
		})
	}
	// transfer has no --device: the library's FILE@GPU is the advice.
	code, _, errs := runCLI(t, "", "transfer", "--to", "a100", "--from", f["nameless.json"])
	if code != 2 || !strings.Contains(errs, "name its GPU as "+f["nameless.json"]+"@GPU") || strings.Contains(errs, "--device") {
		t.Errorf("transfer from a file without a device: exit %d, stderr %q; want FILE@GPU and no --device", code, errs)
	}
	// A command without --model names none.
	code, _, errs = runCLI(t, "", "tune", f["o5.json"], "--gpu", "h100", "--evaluator", "model:embedded", "--budget", "4")
	if code != 1 || !strings.HasSuffix(errs, "; train a model on 2-D stencils of order 5 (smart bench, smart train)\n") {
		t.Errorf("tune of a stencil beyond the models: exit %d, stderr %q", code, errs)
	}
}

// ktCache is a Kernel Tuner cache of one configuration measured on device.
func ktCache(device string) string {
	return `{"device_name":"` + device + `","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},"objective":"time","cache":{"1":{"a":1,"time":2,"times":[1,2,3]}}}`
}

// TestAdviceUnknownDevice: a GPU NVML names that the catalogue lacks gets the flags that name
// it, not the catalogue's advice alone.
func TestAdviceUnknownDevice(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = app.DeviceGPU(cat, "", "NVIDIA Prototype X", 0)
	if got := advice("bench", err); got != "; name it with --gpu or add it with --catalog" {
		t.Errorf("advice(%v) = %q", err, got)
	}
}

// Without a GPU, the commands that measure name the flag that simulates instead.
func TestAdviceNoGPU(t *testing.T) {
	for cmd, want := range map[string]string{
		"bench":    "; without one, --backend sim simulates the times with the analytic model",
		"campaign": "; without one, --backend sim simulates the times with the analytic model",
		"tune":     "; without one, --evaluator sim or model:embedded searches a model instead",
	} {
		if got := advice(cmd, fmt.Errorf("opening the GPU: %w", gpuinfo.ErrNoGPU)); got != want {
			t.Errorf("advice(%s) = %q; want %q", cmd, got, want)
		}
	}
}
