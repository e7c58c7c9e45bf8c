package transfer

import (
	"encoding/json"
	"strings"
	"testing"

	"smart"
	"smart/dataset"
)

// CheckFiles refuses shots of another kernel, other parameters or problem size, or with no
// successful run, and sources of different problem sizes; it lets consistent files through.
func TestCheckFiles(t *testing.T) {
	file := func(path, kernel string, params []string, size []int, status smart.Status) *File {
		k := &dataset.Kernel{Name: kernel, ProblemSize: size}
		for _, p := range params {
			k.Params = append(k.Params, dataset.Param{Name: p, Values: []int{1, 2}})
		}
		// Each file its own time, as each GPU's measurements have.
		return &File{Path: path, Kernel: k, Rows: []smart.Measurement{{Kernel: kernel, Setting: smart.Setting{"a": 1}, Status: status, TimeMs: float64(path[0])}}}
	}
	// floats has f write parameter name as floats (1.0, 2.0): labels, whose codes are not 1 and 2.
	floats := func(f *File, name string) *File {
		for i, p := range f.Kernel.Params {
			if p.Name == name {
				f.Kernel.Params[i].Labels = []json.RawMessage{json.RawMessage("1.0"), json.RawMessage("2.0")}
			}
		}
		return f
	}
	ab := []string{"a", "b"}
	src := []*File{file("x.json", "conv", ab, []int{4096}, smart.StatusOK), file("y.json", "conv", []string{"b", "a"}, nil, smart.StatusOK)}
	tests := []struct {
		name    string
		sources []*File
		shots   []*File
		kernel  string
		want    string
	}{
		{"consistent", src, []*File{file("s.json", "conv", ab, []int{4096}, smart.StatusOK)}, "", ""},
		{"named kernel", src, []*File{file("s.json", "conv", ab, nil, smart.StatusOK)}, "conv", ""},
		{"another kernel", src, []*File{file("s.json", "dedisp", ab, nil, smart.StatusOK)}, "", "s.json holds kernel dedisp, not the sources' kernel conv"},
		{"another parameter", src, []*File{file("s.json", "conv", []string{"a", "b", "c"}, nil, smart.StatusOK)}, "", "s.json tunes a,b,c; x.json tunes a,b"},
		{"another size", src, []*File{file("s.json", "conv", ab, []int{1024}, smart.StatusOK)}, "", "s.json measured problem size [1024]; x.json [4096]"},
		{"sources of two sizes", []*File{src[0], file("z.json", "conv", ab, []int{512}, smart.StatusOK)}, nil, "", "z.json measured problem size [512]"},
		{"only failures", src, []*File{file("s.json", "conv", ab, nil, smart.StatusLaunchError)}, "", "s.json holds no successful run of kernel conv"},
		{"two sources of one GPU", []*File{onGPU(src[0], "A100-40GB"), onGPU(src[1], "A100-40GB")}, nil, "", "x.json and y.json both hold kernel conv measured on A100-40GB"},
		{"sources of two GPUs", []*File{onGPU(src[0], "A100-40GB"), onGPU(src[1], "RTX-A6000")}, nil, "", ""},
		{"one GPU, two kernels", []*File{onGPU(src[0], "A100-40GB"), onGPU(file("d.json", "dedisp", ab, nil, smart.StatusOK), "A100-40GB")}, nil, AllKernels, ""},
		// A cache and its T4 twin, the twin taken as another GPU's (FILE@GPU): one GPU's
		// measurements under two names, as tune-bench refuses them.
		{"a parameter written two ways", []*File{src[0], floats(file("f.json", "conv", ab, nil, smart.StatusOK), "a")}, nil, "", "f.json writes parameter a as labels (floats such as 1.0, or strings); x.json as integers"},
		{"one measurement as two GPUs", []*File{onGPU(src[0], "A100-40GB"), onGPU(renamed(src[0], "x_T4.json"), "A100-80GB")}, nil, "", "x.json and x_T4.json hold the same settings and times"},
	}
	for _, tc := range tests {
		err := CheckFiles(tc.sources, tc.shots, tc.kernel)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

// renamed is a copy of f read from another path.
func renamed(f *File, path string) *File {
	g := *f
	g.Path = path
	return &g
}

// onGPU is a copy of f measured on the catalogue's GPU name.
func onGPU(f *File, name string) *File {
	g := *f
	g.GPU = smart.GPU{Name: name}
	return &g
}

// A stencil is selected by its name as by its ID; a name two stencils share is refused.
func TestSelectByName(t *testing.T) {
	row := func(id string) smart.Measurement {
		return smart.Measurement{StencilID: id, Setting: smart.Setting{"bx": 32}, Status: smart.StatusOK, TimeMs: 1}
	}
	f := &File{Path: "d", Rows: []smart.Measurement{row("aa"), row("bb"), row("cc")},
		Stencils: map[string]*smart.Stencil{"aa": {Name: "j3d7pt"}, "bb": {Name: "j2d5pt"}, "cc": {Name: "j2d5pt"}}}
	src, err := Select([]*File{f}, "j3d7pt")
	if err != nil || len(src) != 1 || len(src[0].Rows) != 1 || src[0].Rows[0].StencilID != "aa" {
		t.Errorf("by name: %+v, %v; want stencil aa's row", src, err)
	}
	if _, err := Select([]*File{f}, "j2d5pt"); err == nil || !strings.Contains(err.Error(), "2 stencils are named j2d5pt") {
		t.Errorf("a shared name: %v", err)
	}
	if _, err := Select([]*File{f}, "nosuch"); err == nil || !strings.Contains(err.Error(), "stencil aa (j3d7pt)") {
		t.Errorf("an unknown name: %v; want the IDs with their names", err)
	}
}
