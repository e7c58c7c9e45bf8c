package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/internal/ktdata"
	"smart/space"
)

// ktCounts are the configurations of each file, counted independently with Python:
//
//	d = json.load(gzip.open(f)); c = d["cache"]
//	Counter(v["time"] for v in c.values() if isinstance(v["time"], str)), len(c), d["device_name"]
//
// and for the T4 file Counter(r["invalidity"] for r in t["results"]).
var ktCounts = []struct {
	file, device, kernel string
	total, ok            int
	compile, runtime     int
}{
	{"convolution_milo/A100.json.gz", "NVIDIA A100-PCIE-40GB", "convolution_kernel", 4362, 4201, 6, 155},
	{"convolution_milo/A100_T4.json.gz", "", "convolution_kernel", 4362, 4201, 6, 155},
	{"convolution_milo/A4000.json.gz", "NVIDIA RTX A4000", "convolution_kernel", 4362, 4201, 6, 155},
	{"convolution_milo/A6000.json.gz", "NVIDIA RTX A6000", "convolution_kernel", 4362, 3889, 252, 221},
	{"convolution_milo/MI250X.json.gz", "", "convolution_kernel", 4362, 4362, 0, 0},
	{"convolution_milo/W6600.json.gz", "AMD Radeon PRO W6600", "convolution_kernel", 4362, 4362, 0, 0},
	{"convolution_milo/W7800.json.gz", "AMD Radeon PRO W7800", "convolution_kernel", 4362, 4246, 116, 0},
	{"dedispersion_milo/A100.json.gz", "NVIDIA A100-PCIE-40GB", "dedispersion_kernel", 11130, 11130, 0, 0},
	{"dedispersion_milo/A4000.json.gz", "NVIDIA RTX A4000", "dedispersion_kernel", 11130, 11130, 0, 0},
	{"dedispersion_milo/A6000.json.gz", "NVIDIA RTX A6000", "dedispersion_kernel", 11130, 11130, 0, 0},
	{"dedispersion_milo/MI250X.json.gz", "", "dedispersion_kernel", 11130, 11130, 0, 0},
	{"dedispersion_milo/W6600.json.gz", "AMD Radeon PRO W6600", "dedispersion_kernel", 11130, 11130, 0, 0},
	{"dedispersion_milo/W7800.json.gz", "AMD Radeon PRO W7800", "dedispersion_kernel", 11130, 11130, 0, 0},
}

func TestReadEveryKernelTunerFile(t *testing.T) {
	for _, kernel := range []string{"convolution_milo", "dedispersion_milo"} {
		if root, ok := ktdata.Dir(kernel); ok {
			files, _ := filepath.Glob(filepath.Join(root, kernel, "*.json.gz"))
			known := 0
			for _, c := range ktCounts {
				if strings.HasPrefix(c.file, kernel+"/") {
					known++
				}
			}
			if len(files) != known {
				t.Fatalf("%d files in %s; the test knows %d", len(files), filepath.Join(root, kernel), known)
			}
		}
	}
	for _, c := range ktCounts {
		t.Run(c.file, func(t *testing.T) {
			kernel, _, _ := strings.Cut(c.file, "/")
			root := ktdata.Require(t, kernel)
			path := filepath.Join(root, c.file)
			f, err := ReadKernelTuner(path, ImportOptions{Device: "given", Resolve: func(d string) (string, bool) { return "cat:" + d, d != "given" }})
			if err != nil {
				t.Fatal(err)
			}
			wantDev, wantGPU := c.device, "cat:"+c.device
			if c.device == "" {
				wantDev, wantGPU = "given", ""
			}
			if f.Device.Name != wantDev || f.Device.GPU != wantGPU || f.Kernel.Name != c.kernel {
				t.Errorf("device %+v, kernel %s", f.Device, f.Kernel.Name)
			}
			byStatus := map[smart.Status]int{}
			for _, m := range f.Rows {
				byStatus[m.Status]++
				if m.Source != smart.Imported || m.Device != wantDev || m.GPU != wantGPU || m.Kernel != c.kernel || len(m.Setting) != len(f.Kernel.Params) {
					t.Fatalf("row %+v", m)
				}
				if m.OK() && (m.Reps != 32 || !(m.MinMs <= m.TimeMs && m.TimeMs <= m.MaxMs) || m.StdMs < 0) {
					t.Fatalf("times of %+v", m)
				}
			}
			want := map[smart.Status]int{smart.StatusOK: c.ok}
			if c.compile > 0 {
				want[smart.StatusCompileError] = c.compile
			}
			if c.runtime > 0 {
				want[smart.StatusLaunchError] = c.runtime
			}
			if len(f.Rows) != c.total || !reflect.DeepEqual(byStatus, want) {
				t.Errorf("%d rows %v; want %d %v", len(f.Rows), byStatus, c.total, want)
			}
			if len(f.Kernel.Constraints) == 0 {
				t.Error("the constraints of space.json were not carried")
			}
		})
	}
}

func TestKernelSpaceOfImport(t *testing.T) {
	root := ktdata.Require(t, "convolution_milo")
	_, err := ReadKernelTuner(filepath.Join(root, "convolution_milo/MI250X.json.gz"), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "MI250X.json.gz: the file does not name its device") || !errors.Is(err, ErrNoDevice) {
		t.Fatalf("a file without a device name: %v", err)
	}
	f, err := ReadKernelTuner(filepath.Join(root, "convolution_milo/A100.json.gz"), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{
		{Name: "block_size_x", Values: []int{16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256}},
		{Name: "block_size_y", Values: []int{1, 2, 4, 8, 16}},
		{Name: "tile_size_x", Values: []int{1, 2, 3, 4}},
		{Name: "tile_size_y", Values: []int{1, 2, 3, 4}},
		{Name: "read_only", Values: []int{0, 1}},
		{Name: "use_padding", Values: []int{0, 1}},
		{Name: "use_shmem", Values: []int{0, 1}},
		{Name: "use_cmem", Values: []int{1}},
		{Name: "filter_height", Values: []int{15}},
		{Name: "filter_width", Values: []int{15}},
	}
	if !reflect.DeepEqual(f.Kernel.Params, want) {
		t.Errorf("params %+v", f.Kernel.Params)
	}
	wantC := []string{
		"use_padding==0 or block_size_x % 32 != 0",
		"block_size_x*block_size_y<=1024",
		"use_padding==0 or use_shmem != 0",
		"use_shmem == 0 or (((block_size_x*tile_size_x+(filter_width-1)))*((block_size_y*tile_size_y+(filter_height-1)))) < 12*1024",
	}
	if !reflect.DeepEqual(f.Kernel.Constraints, wantC) || !reflect.DeepEqual(f.Kernel.ProblemSize, []int{4096, 4096}) {
		t.Errorf("constraints %q, problem size %v", f.Kernel.Constraints, f.Kernel.ProblemSize)
	}
	// The T4 twin takes its kernel name and values from space.json and holds the same rows.
	t4, err := ReadKernelTuner(filepath.Join(root, "convolution_milo/A100_T4.json.gz"), ImportOptions{Device: "NVIDIA A100-PCIE-40GB"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(t4.Kernel.Params, want) || len(t4.Rows) != len(f.Rows) {
		t.Fatalf("T4 kernel %+v, %d rows", t4.Kernel, len(t4.Rows))
	}
	for i := range f.Rows {
		a, b := f.Rows[i], t4.Rows[i]
		if !reflect.DeepEqual(a.Setting, b.Setting) || a.Status != b.Status || a.TimeMs != b.TimeMs || a.MeanMs != b.MeanMs || a.StdMs != b.StdMs {
			t.Fatalf("row %d: cache %+v\nT4 %+v", i, a, b)
		}
	}
}

// TestReplayKernelTuner checks replayed times against values read with Python from the cache
// (statistics.median and statistics.stdev of "times", and "time").
func TestReplayKernelTuner(t *testing.T) {
	root := ktdata.Require(t, "convolution_milo")
	ctx := context.Background()
	r, err := OpenReplay(filepath.Join(root, "convolution_milo/A100.json.gz"), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conv := func(v ...int) smart.Setting {
		s := smart.Setting{}
		for i, p := range r.Kernels()[0].Params {
			s[p.Name] = v[i]
		}
		return s
	}
	for _, tc := range []struct {
		setting                 smart.Setting
		status                  smart.Status
		median, mean, min, stdv float64
	}{
		{conv(16, 1, 1, 1, 0, 0, 0, 1, 15, 15), smart.StatusOK, 3.87174391746521, 3.8753279224038124, 3.8696959018707275, 0.01847417436942412},
		{conv(32, 4, 1, 3, 1, 0, 1, 1, 15, 15), smart.StatusOK, 0.549888014793396, 0.5536000076681376, 0, 0}, // the fastest
		{conv(32, 16, 2, 4, 1, 0, 0, 1, 15, 15), smart.StatusLaunchError, 0, 0, 0, 0},                        // RuntimeFailedConfig
	} {
		for _, gpu := range []string{"", "nvidia a100-pcie-40gb"} {
			m, err := r.Evaluate(ctx, smart.Query{Setting: tc.setting, GPU: gpu})
			if err != nil {
				t.Fatal(err)
			}
			if m.Status != tc.status || m.TimeMs != tc.median || m.MeanMs != tc.mean || (tc.min != 0 && m.MinMs != tc.min) ||
				(tc.stdv != 0 && m.StdMs-tc.stdv > 1e-15) || m.Source != smart.Imported || m.Device != "NVIDIA A100-PCIE-40GB" {
				t.Errorf("%s: %+v", tc.setting, m)
			}
		}
	}
	missing := conv(16, 1, 1, 1, 0, 1, 0, 1, 15, 15) // use_padding without use_shmem breaks a constraint
	if _, err := r.Evaluate(ctx, smart.Query{Setting: missing}); !errors.Is(err, ErrNotMeasured) {
		t.Errorf("an unmeasured setting: %v", err)
	}
	r.Missing = smart.StatusInvalid
	if m, err := r.Evaluate(ctx, smart.Query{Setting: missing}); err != nil || m.Status != smart.StatusInvalid || m.Source != smart.Imported {
		t.Errorf("an unmeasured setting with Missing set: %+v, %v", m, err)
	}
	if _, err := r.Evaluate(ctx, smart.Query{Setting: missing, GPU: "V100"}); err == nil || !strings.Contains(err.Error(), `no rows of GPU "V100"`) {
		t.Errorf("another GPU: %v", err)
	}
	if r.Len() != 4362 {
		t.Errorf("%d variants", r.Len())
	}
}

// TestImportAndReplayDataSet imports two devices' caches into one data set and replays it.
func TestImportAndReplayDataSet(t *testing.T) {
	root := ktdata.Require(t, "convolution_milo")
	ctx := context.Background()
	files := []string{
		filepath.Join(root, "convolution_milo/A100.json.gz"),
		filepath.Join(root, "convolution_milo/A100_T4.json.gz"),
		filepath.Join(root, "convolution_milo/W6600.json.gz"),
	}
	opt := ImportOptions{Device: "NVIDIA A100-PCIE-40GB"}
	dir := filepath.Join(t.TempDir(), "kt")
	nameless := []string{files[1], filepath.Join(root, "convolution_milo/MI250X.json.gz")}
	if _, err := Import(ctx, dir, nameless, ImportOptions{Device: "AMD Instinct MI250X", AllowMixed: true}); err == nil || !strings.Contains(err.Error(), "2 files do not name their device") {
		t.Fatalf("one device name for two nameless files: %v", err)
	}
	if _, err := Import(ctx, dir, files, opt); err == nil || !strings.Contains(err.Error(), "measured on 2 devices") || !errors.As(err, new(*MixedError)) {
		t.Fatalf("importing two devices without allowing it: %v", err)
	}
	opt.AllowMixed = true
	sums, err := Import(ctx, dir, files, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sums[0].Rows != 4362 || sums[1].Duplicates != 4362 || sums[1].Rows != 0 || sums[2].Rows != 4362 || sums[0].ByStatus[smart.StatusLaunchError] != 155 {
		t.Fatalf("summaries %+v", sums)
	}
	meta, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Kernels) != 1 || len(meta.Kernels[0].Files) != 3 || len(meta.Devices) != 2 || !meta.AllowMixed || meta.Sources[0] != smart.Imported {
		t.Fatalf("meta %+v", meta)
	}
	r, err := OpenReplay(dir, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := smart.Setting{"block_size_x": 16, "block_size_y": 1, "tile_size_x": 1, "tile_size_y": 1, "read_only": 0, "use_padding": 0, "use_shmem": 0, "use_cmem": 1, "filter_height": 15, "filter_width": 15}
	if _, err := r.Evaluate(ctx, smart.Query{Setting: s}); err == nil || !strings.Contains(err.Error(), "holds 2 devices") {
		t.Fatalf("a query naming no GPU: %v", err)
	}
	m, err := r.Evaluate(ctx, smart.Query{Setting: s, GPU: "NVIDIA A100-PCIE-40GB"})
	if err != nil || m.TimeMs != 3.87174391746521 || m.MeanMs != 3.8753279224038124 {
		t.Fatalf("replay from the data set: %+v, %v", m, err)
	}
	st, err := ComputeStats(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted by device name: AMD first.
	if len(st.Kernels) != 2 || st.Kernels[1].BestMs != 0.549888014793396 || st.Kernels[1].OK != 4201 || st.Kernels[0].OK != 4362 {
		t.Fatalf("kernel stats %+v", st.Kernels)
	}
}

func TestKernelTunerErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, gz bool) string { return writeFile(t, dir, name, content, gz) }
	cache := func(time string) string {
		return fmt.Sprintf(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},"objective":"time","cache":{"1":{"a":1,"time":%s,"times":[1,2,3]}}}`, time)
	}
	for _, tc := range []struct {
		name, content string
		gz            bool
		want          string
	}{
		{"plain.json", cache("2"), false, ""},
		{"zipped.json.gz", cache("2"), true, ""},
		{"gflops.json", strings.Replace(cache("2"), `"objective":"time"`, `"objective":"GFLOP/s"`, 1), false, ""},
		{"unknown.json", cache(`"WeirdConfig"`), false, `field cache["1"].time is "WeirdConfig", a failure smart does not know`},
		{"negative.json", cache("-1"), false, `field cache["1"].time is -1, neither a positive time in ms (1e-06 to 1e+09) nor a failure name`},
		{"huge.json", cache("1e308"), false, `field cache["1"].time is 1e308, neither a positive time in ms (1e-06 to 1e+09) nor a failure name`},
		{"hugeruns.json", strings.Replace(cache("2"), "[1,2,3]", "[1e308,1e308]", 1), false, `field cache["1"].times: a run time is not a positive number of milliseconds from 1e-06 up to 1e+09`},
		{"nokernel.json", strings.Replace(cache("2"), `"kernel_name":"k",`, "", 1), false, `field kernel_name is missing or empty`},
		{"control.json", strings.Replace(cache("2"), `"device_name":"X"`, `"device_name":"A\nB"`, 1), false, `field device_name is "A\nB", which holds a control character`},
		{"float.json", strings.Replace(cache("2"), `"a":[1,2]`, `"a":[1,2.0000001]`, 1), false, "field tune_params.a[1]: 2.0000001 has more than six decimals"},
		{"array.json", strings.Replace(cache("2"), `"a":[1,2]`, `"a":[1,[2]]`, 1), false, "field tune_params.a[1]: [2] is neither a number nor a string"},
		{"notjson.json", "{\"cache\": [", false, "not a Kernel Tuner file: invalid JSON"},
		{"other.json", `{"hello": 1}`, false, "neither a Kernel Tuner cache"},
		{"t4.json", `{"results":[{"configuration":{"a":1},"invalidity":"correct","measurements":[{"name":"time","value":1}]}]}`, false, "does not name its kernel"},
		{"bad.json.gz", "not gzip", false, "not a Kernel Tuner file"},
		{"empty.json", strings.Replace(cache("2"), `{"1":{"a":1,"time":2,"times":[1,2,3]}}`, `{}`, 1), false, "holds no configurations"},
		{"array.json", `[{"cache": {}}]`, false, "the file has a JSON array where an object is expected"},
		{"cachelist.json", `{"cache": [1]}`, false, `field "cache" has a JSON array where an object is expected`},
		{"times.json", strings.Replace(cache("2"), "[1,2,3]", `"fast"`, 1), false, `field cache["1"].times: the file has a JSON string where an array is expected; give the runs' times in ms as a list of numbers`},
		{"timestext.json", strings.Replace(cache("2"), "[1,2,3]", `[1,"x"]`, 1), false, `field cache["1"].times: the file has a JSON string where a number is expected`},
		{"space/k.json", cache("2"), false, `field "ConfigurationSpace.TuningParameters" has a JSON string where an array is expected`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			named := tc.name // the file the error names
			if sub, _ := filepath.Split(tc.name); sub != "" {
				// A file in a subdirectory has a damaged space.json beside it.
				os.Mkdir(filepath.Join(dir, sub), 0o755)
				named = filepath.Join(sub, "space.json")
				write(named, `{"ConfigurationSpace": {"TuningParameters": "a"}}`, false)
			}
			_, err := ReadKernelTuner(write(tc.name, tc.content, tc.gz), ImportOptions{})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), named) {
				t.Fatalf("error %v; want one naming the file and containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "dataset.") || strings.Contains(err.Error(), "struct {") {
				t.Errorf("error %v names a Go type", err)
			}
		})
	}
}

func ExampleReplay() {
	// An excerpt of convolution_milo/A100.json.gz from the Kernel Tuner data: seven configurations.
	r, err := OpenReplay("testdata/conv-a100-excerpt.json.gz", ImportOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := smart.Setting{"block_size_x": 32, "block_size_y": 4, "tile_size_x": 1, "tile_size_y": 3, "read_only": 1,
		"use_padding": 0, "use_shmem": 1, "use_cmem": 1, "filter_height": 15, "filter_width": 15}
	m, err := r.Evaluate(context.Background(), smart.Query{Setting: s})
	fmt.Println(m.Status, m.TimeMs, "ms median of", m.Reps, "runs,", m.Source, "from", m.Device, err)
	// Output: ok 0.549888014793396 ms median of 32 runs, imported from NVIDIA A100-PCIE-40GB <nil>
}

// TestOpenKernelTunerCache reads caches as Kernel Tuner leaves them when a run stops before it
// closes them: the header and one configuration a line, each followed by a comma (its
// util.store_cache) or preceded by one (its newer cache module), without the closing braces; and
// a run killed in the middle of a line. Each must give the closed cache's configurations, less a
// torn last line.
func TestOpenKernelTunerCache(t *testing.T) {
	dir := t.TempDir()
	header := "{\n\"device_name\": \"NVIDIA RTX A4000\",\n\"kernel_name\": \"k\",\n\"tune_params_keys\": [\n\"a\",\n\"b\"\n],\n\"tune_params\": {\n\"a\": [\n1,\n2\n],\n\"b\": [\n8,\n16\n]\n},\n\"objective\": \"time\",\n\"cache\": {"
	entries := []string{
		`"1,8": {"a": 1, "b": 8, "time": 2.5, "times": [2.4, 2.5, 2.6]}`,
		`"1,16": {"a": 1, "b": 16, "time": "CompilationFailedConfig"}`,
		`"2,8": {"a": 2, "b": 8, "time": 1.5, "times": [1.5, 1.5, 1.6]}`,
	}
	trailing := header // util.store_cache: "\n" + entry + ","
	leading := header  // the cache module: "," + "\n" + entry, the first without the comma
	for i, e := range entries {
		trailing += "\n" + e + ","
		if i > 0 {
			leading += ","
		}
		leading += "\n" + e
	}
	closed := strings.TrimSuffix(trailing, ",") + "}\n}"
	write := func(name, content string, gz bool) string { return writeFile(t, dir, name, content, gz) }
	want, err := ReadKernelTuner(write("closed.json", closed, false), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want.Open || want.Torn || len(want.Rows) != 3 {
		t.Fatalf("closed cache: open %v, torn %v, %d rows; want a closed cache of 3", want.Open, want.Torn, len(want.Rows))
	}
	for _, tc := range []struct {
		name, content string
		gz, torn      bool
		rows          int
	}{
		{"trailing.json", trailing, false, false, 3},
		{"trailing-space.json", trailing + "\n\n", false, false, 3},
		{"leading.json", leading, false, false, 3},
		{"trailing.json.gz", trailing, true, false, 3},
		{"torn.json", trailing + "\n" + `"2,16": {"a": 2, "b": 1`, false, true, 3},          // a fourth, cut
		{"torn-leading.json", strings.TrimSuffix(leading, entries[2][12:]), false, true, 2}, // the third, cut
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadKernelTuner(write(tc.name, tc.content, tc.gz), ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !f.Open || f.Torn != tc.torn {
				t.Errorf("open %v, torn %v; want open, torn %v", f.Open, f.Torn, tc.torn)
			}
			if !reflect.DeepEqual(f.Rows, want.Rows[:tc.rows]) {
				t.Errorf("rows differ from the closed cache's first %d:\n%+v\n%+v", tc.rows, f.Rows, want.Rows[:tc.rows])
			}
		})
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(closed))
	w.Close()
	for _, tc := range []struct{ name, content, want string }{
		{"started.json", header, "holds no configurations"},                               // the run measured nothing yet
		{"inheader.json", header[:40], "invalid JSON: the file is empty or cut short"},    // no configuration line to stand on
		{"cutgzip.json.gz", gz.String()[:gz.Len()/2], "the compressed file is cut short"}, // a download cut short
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadKernelTuner(write(tc.name, tc.content, false), ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("error %v; want one naming %s and saying %q", err, tc.name, tc.want)
			}
		})
	}
}

// TestKernelTunerOldFailures reads a cache of Kernel Tuner 0.4, which recorded a configuration
// that failed to compile or run with the time 1e20 instead of a failure's name.
func TestKernelTunerOldFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(path, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2,3]},`+
		`"cache":{"1":{"a":1,"time":2.0},"2":{"a":2,"time":1e20},"3":{"a":3,"time":1e+20}}}`), 0o644)
	f, err := ReadKernelTuner(path, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]smart.Status{}
	for _, m := range f.Rows {
		got[m.Setting["a"]] = m.Status
	}
	want := map[int]smart.Status{1: smart.StatusOK, 2: smart.StatusLaunchError, 3: smart.StatusLaunchError}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v; want %v", got, want)
	}
	// Any other huge time is still refused: only Kernel Tuner's mark means a failure.
	os.WriteFile(path, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1]},"cache":{"1":{"a":1,"time":2e20}}}`), 0o644)
	if _, err := ReadKernelTuner(path, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "neither a positive time") {
		t.Errorf("time 2e20: error %v; want a refusal", err)
	}
}

// TestKernelTunerPythonFloats reads a cache as Python's json module writes it where a metric or
// an observer's reading is not a finite number: NaN and Infinity, which JSON lacks. A string that
// holds those words is left alone, and a time that is NaN or infinite is still refused, saying
// what the file holds.
func TestKernelTunerPythonFloats(t *testing.T) {
	dir := t.TempDir()
	cache := func(first string) string {
		return `{"device_name":"NaN Infinity","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},"cache":{` +
			`"1":{"a":1,"time":` + first + `,"times":[2.0,2.0],"GFLOP/s":Infinity,"nvml_energy":NaN},` +
			`"2":{"a":2,"time":3.0,"times":[3.0],"GFLOP/s":-Infinity,"note":"NaN, \"Infinity\""}}}`
	}
	path := filepath.Join(dir, "py.json")
	os.WriteFile(path, []byte(cache("2.0")), 0o644)
	f, err := ReadKernelTuner(path, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Device.Name != "NaN Infinity" || len(f.Rows) != 2 || f.Rows[0].TimeMs != 2 || f.Rows[1].TimeMs != 3 {
		t.Errorf("device %q, rows %+v; want the device name as written and times 2 and 3", f.Device.Name, f.Rows)
	}
	for _, held := range []string{"NaN", "Infinity", "-Infinity", "null"} {
		os.WriteFile(path, []byte(cache(held)), 0o644)
		if _, err := ReadKernelTuner(path, ImportOptions{}); err == nil || !strings.Contains(err.Error(), `field cache["1"].time is `+held+", neither") {
			t.Errorf("a time of %s: error %v; want one naming the field and %s", held, err, held)
		}
	}
	for in, want := range map[string]string{
		`[NaN,-Infinity,1]`:      `[null,null,1]`,
		`{"x":"NaN\"Infinity"}`:  `{"x":"NaN\"Infinity"}`,
		`{"x":"a\\","y":NaN}`:    `{"x":"a\\","y":null}`,
		`{"Infinity":Infinity}`:  `{"Infinity":null}`,
		`{"x":-1,"y":-Infinity}`: `{"x":-1,"y":null}`,
		`{"time" : NaN,"t":NaN}`: `{"time" : "NaN","t":null}`,
		`{"runtime":Infinity}`:   `{"runtime":null}`,
	} {
		if got := string(nullPythonFloats([]byte(in))); got != want {
			t.Errorf("nullPythonFloats(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestImportPredictedCache: a cache of smart's predictions (its top-level "smart" object says
// predicted) imports as predicted rows, and joins a cache of measurements only when mixing is
// asked for.
func TestImportPredictedCache(t *testing.T) {
	dir := t.TempDir()
	cache := func(note string) string {
		return `{"device_name":"NVIDIA RTX A4000","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},` +
			`"cache":{"1":{"a":1,"time":2.0},"2":{"a":2,"time":3.0}}` + note + `}`
	}
	pred := filepath.Join(dir, "pred.json")
	meas := filepath.Join(dir, "meas.json")
	os.WriteFile(pred, []byte(cache(`,"smart":{"source":"predicted","basis":"a test"}`)), 0o644)
	os.WriteFile(meas, []byte(cache("")), 0o644)
	sums, err := Import(context.Background(), filepath.Join(dir, "p"), []string{pred}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	meta, rows, err := ReadAll(filepath.Join(dir, "p"))
	if err != nil || len(rows) != 2 || rows[0].Source != smart.Predicted || !reflect.DeepEqual(meta.Sources, []smart.Source{smart.Predicted}) || sums[0].Source != smart.Predicted {
		t.Fatalf("imported %d rows of source %v (meta %v, summary %v), %v; want 2 predicted", len(rows), rows[0].Source, meta.Sources, sums[0].Source, err)
	}
	var mixed *MixedError
	if _, err := Import(context.Background(), filepath.Join(dir, "m"), []string{meas, pred}, ImportOptions{}); !errors.As(err, &mixed) || !strings.Contains(err.Error(), "pred.json") {
		t.Errorf("measurements with predictions: %v, want a *MixedError naming pred.json", err)
	}
	if _, err := Import(context.Background(), filepath.Join(dir, "m2"), []string{meas, pred}, ImportOptions{AllowMixed: true}); err != nil {
		t.Errorf("mixing asked for: %v", err)
	}
}

// TestKernelTunerBooleans reads a parameter whose values are Python booleans: false and true in
// tune_params and in a T4 configuration, False and True in a cache's keys, as 0 and 1, and marks
// it Bool; a value that is null is refused, not read as 0.
func TestKernelTunerBooleans(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "bool.json")
	os.WriteFile(cache, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["bx","shmem"],"tune_params":{"bx":[16,32],"shmem":[false,true]},`+
		`"cache":{"16,False":{"bx":16,"shmem":false,"time":2.0},"32,True":{"bx":32,"shmem":true,"time":1.0}}}`), 0o644)
	f, err := ReadKernelTuner(cache, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{{Name: "bx", Values: []int{16, 32}}, {Name: "shmem", Values: []int{0, 1}, Bool: true}}
	if !reflect.DeepEqual(f.Kernel.Params, want) {
		t.Errorf("params %+v, want %+v", f.Kernel.Params, want)
	}
	got := map[string]float64{}
	for _, m := range f.Rows {
		got[m.Setting.String()] = m.TimeMs
	}
	if !reflect.DeepEqual(got, map[string]float64{"bx=16,shmem=0": 2, "bx=32,shmem=1": 1}) {
		t.Errorf("rows %v", got)
	}
	t4 := filepath.Join(dir, "t4.json")
	os.WriteFile(t4, []byte(`{"results":[{"configuration":{"bx":16,"shmem":true},"invalidity":"correct","times":{"runtimes":[1.5]},"measurements":[{"name":"time","value":1.5}]}]}`), 0o644)
	g, err := ReadKernelTuner(t4, ImportOptions{Device: "X", Kernel: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Rows) != 1 || g.Rows[0].Setting["shmem"] != 1 || !slices.ContainsFunc(g.Kernel.Params, func(p Param) bool { return p.Name == "shmem" && p.Bool }) {
		t.Errorf("T4: rows %+v, params %+v; want shmem=1, a boolean parameter", g.Rows, g.Kernel.Params)
	}
	os.WriteFile(cache, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["bx"],"tune_params":{"bx":[16,null]},"cache":{"16":{"bx":16,"time":2.0}}}`), 0o644)
	if _, err := ReadKernelTuner(cache, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "tune_params.bx[1]: null is neither a number nor a string") {
		t.Errorf("a null value: %v, want it refused by name", err)
	}
}

// TestKernelTunerWholeFloats: a float written as a whole number (1.0) is a float, as Kernel
// Tuner's keys print it ("32,1.0"): a label that keeps its spelling, of the same code in a cache
// and in a T4 file, while an integer (32) stays an integer.
func TestKernelTunerWholeFloats(t *testing.T) {
	dir := t.TempDir()
	cache := writeFile(t, dir, "c.json", `{"device_name":"X","kernel_name":"k","tune_params_keys":["bx","scale"],
		"tune_params":{"bx":[32,64],"scale":[1.0,2.0]},"cache":{"32,1.0":{"time":2.0},"64,2.0":{"time":1.0}}}`, false)
	f, err := ReadKernelTuner(cache, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bx, scale := f.Kernel.Params[0], f.Kernel.Params[1]
	if bx.Labels != nil || !slices.Equal(bx.Values, []int{32, 64}) || bx.Text(32) != "32" {
		t.Errorf("bx: %+v; want the integers 32 and 64", bx)
	}
	if !slices.Equal(scale.Values, []int{1000000, 2000000}) || scale.Text(1000000) != "1.0" || string(scale.JSON(2000000).(json.RawMessage)) != "2.0" {
		t.Errorf("scale: %+v; want the floats 1.0 and 2.0, spelt so", scale)
	}
	if len(f.Rows) != 2 || f.Rows[0].Setting.String() != "bx=32,scale=1000000" {
		t.Errorf("rows %+v; want bx=32,scale=1000000 first", f.Rows)
	}
	t4 := writeFile(t, dir, "t4.json", `{"results":[{"configuration":{"bx":32,"scale":1.0},"invalidity":"correct","times":{"runtimes":[1.5]},"measurements":[{"name":"time","value":1.5}]}]}`, false)
	g, err := ReadKernelTuner(t4, ImportOptions{Device: "X", Kernel: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Rows) != 1 || g.Rows[0].Setting["scale"] != 1000000 || g.Kernel.Params[1].Text(1000000) != "1.0" {
		t.Errorf("T4: rows %+v, params %+v; want scale=1000000, spelt 1.0", g.Rows, g.Kernel.Params)
	}
}

// Labels: a float and a string parameter read as codes (millionths, a hash), the same in two
// files that list the values in other orders, a key that prints a number otherwise than
// tune_params does ("0.50") reads as that number, and Text and JSON give the values back.
func TestKernelTunerLabels(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", `{"device_name":"X","kernel_name":"k","tune_params_keys":["alpha","method"],
		"tune_params":{"alpha":[0.5,1.25],"method":["fast","exact"]},"cache":{"0.50,fast":{"time":2.0},"1.25,exact":{"time":1.0}}}`, false)
	b := writeFile(t, dir, "b.json", `{"device_name":"Y","kernel_name":"k","tune_params_keys":["alpha","method"],
		"tune_params":{"alpha":[1.25,0.5],"method":["exact","fast"]},"cache":{"0.5,fast":{"time":4.0},"1.25,exact":{"time":3.0}}}`, false)
	fa, err := ReadKernelTuner(a, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fb, err := ReadKernelTuner(b, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fast, _ := space.LabelCode(json.RawMessage(`"fast"`))
	exact, _ := space.LabelCode(json.RawMessage(`"exact"`))
	want := []string{fmt.Sprintf("alpha=500000,method=%d", fast), fmt.Sprintf("alpha=1250000,method=%d", exact)}
	slices.Sort(want)
	for _, f := range []*KernelTunerFile{fa, fb} {
		var got []string
		for _, m := range f.Rows {
			got = append(got, m.Setting.String())
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			t.Errorf("%s: rows %v; want %v", f.Path, got, want)
		}
	}
	alpha, method := fa.Kernel.Params[0], fa.Kernel.Params[1]
	if alpha.Text(1250000) != "1.25" || method.Text(fast) != "fast" || string(alpha.JSON(500000).(json.RawMessage)) != "0.5" || string(method.JSON(fast).(json.RawMessage)) != `"fast"` {
		t.Errorf("Text/JSON: %q %q %v %v", alpha.Text(1250000), method.Text(fast), alpha.JSON(500000), method.JSON(fast))
	}
	if got := SettingText(smart.Setting{"alpha": 500000, "method": fast}, fa.Kernel.Params); got != "alpha=0.5,method=fast" {
		t.Errorf("SettingText = %q", got)
	}
	// Imported, the data set keeps the labels, and its stats print the values.
	ds := filepath.Join(dir, "ds")
	if _, err := Import(context.Background(), ds, []string{a}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := ComputeStats(context.Background(), ds)
	if err != nil || len(st.Kernels) != 1 || st.Kernels[0].Setting != "alpha=1.25,method=exact" {
		t.Errorf("stats %+v, %v; want the best setting alpha=1.25,method=exact", st, err)
	}
	// A T4 file without space.json: the values seen, the same codes (0.50 is 0.5).
	t4 := writeFile(t, dir, "t4.json", `{"results":[
		{"configuration":{"alpha":0.5,"method":"fast"},"invalidity":"correct","times":{"runtimes":[2.0]},"measurements":[{"name":"time","value":2.0}]},
		{"configuration":{"alpha":0.50,"method":"exact"},"invalidity":"correct","times":{"runtimes":[1.0]},"measurements":[{"name":"time","value":1.0}]},
		{"configuration":{"alpha":1.25,"method":"exact"},"invalidity":"correct","times":{"runtimes":[3.0]},"measurements":[{"name":"time","value":3.0}]}]}`, false)
	ft, err := ReadKernelTuner(t4, ImportOptions{Device: "Z", Kernel: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ft.Rows {
		got = append(got, SettingText(m.Setting, ft.Kernel.Params))
	}
	if want := []string{"alpha=0.5,method=fast", "alpha=0.5,method=exact", "alpha=1.25,method=exact"}; !slices.Equal(got, want) || !slices.Equal(ft.Kernel.Params[0].Values, []int{500000, 1250000}) {
		t.Errorf("T4 rows %v (alpha %v); want %v", got, ft.Kernel.Params[0].Values, want)
	}
}

// writeFile writes content to dir/name, gzip-compressed where gz, and returns the path.
func writeFile(t *testing.T, dir, name, content string, gz bool) string {
	t.Helper()
	data := []byte(content)
	if gz {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		data = b.Bytes()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// KTT's own JSON (OutputFormat::JSON, the form of KTT 2.1.0's output in the
// autotuning_methodology project's test files): the device and time unit from its Metadata,
// microseconds read as milliseconds, each configuration's values by their ValueType (a Double
// as a label), and its statuses as T4's invalidities.
func TestReadKTT(t *testing.T) {
	dir := t.TempDir()
	res := func(status string, bx int, alpha string, us float64) string {
		return fmt.Sprintf(`{"ComputationResults":[{"Duration":%g,"KernelFunction":"Convolution","Overhead":17116.193}],
			"Configuration":[{"Name":"BLOCK_SIZE_X","Value":%d,"ValueType":"UnsignedInt"},{"Name":"ALPHA","Value":%s,"ValueType":"Double"}],
			"KernelName":"Convolution","Status":%q,"TotalDuration":%g,"TotalOverhead":1226624.764}`, us, bx, alpha, status, us)
	}
	path := writeFile(t, dir, "ktt.json", `{"Metadata":{"ComputeApi":"CUDA","Device":"NVIDIA GeForce RTX 3090","GlobalSizeType":"CUDA",
		"KttVersion":"2.1.0","Platform":"NVIDIA CUDA","TimeUnit":"Microseconds","Timestamp":"2024-04-20 10:59:14 UTC"},"Results":[`+
		res("Ok", 8, "0.5", 1189.696)+","+res("Ok", 16, "1.5", 1224.032)+","+res("CompilationFailed", 32, "0.5", 0)+"]}", false)
	f, err := ReadKernelTuner(path, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != "ktt" || f.Device.Name != "NVIDIA GeForce RTX 3090" || f.Kernel.Name != "Convolution" || len(f.Rows) != 3 {
		t.Fatalf("format %s, device %q, kernel %q, %d rows", f.Format, f.Device.Name, f.Kernel.Name, len(f.Rows))
	}
	got := map[string]string{}
	for _, m := range f.Rows {
		got[SettingText(m.Setting, f.Kernel.Params)] = fmt.Sprintf("%s %.6g", m.Status, m.TimeMs)
	}
	want := map[string]string{"ALPHA=0.5,BLOCK_SIZE_X=8": "ok 1.1897", "ALPHA=1.5,BLOCK_SIZE_X=16": "ok 1.22403", "ALPHA=0.5,BLOCK_SIZE_X=32": "compile_error 0"}
	if !maps.Equal(got, want) {
		t.Errorf("rows %v; want %v", got, want)
	}
	bad := writeFile(t, dir, "bad.json", `{"Metadata":{"Device":"X","TimeUnit":"Microseconds"},"Results":[`+strings.Replace(res("Ok", 8, "0.5", 1), `"Ok"`, `"Maybe"`, 1)+"]}", false)
	if _, err := ReadKernelTuner(bad, ImportOptions{}); err == nil || !strings.Contains(err.Error(), `bad.json: not a KTT file: field Results[0].Status is "Maybe"`) {
		t.Errorf("an unknown status: %v", err)
	}
}

// KTT's T4 files hold every configuration value as a string and their times in the metadata's
// time unit; Kernel Tuner's T4 files, numbers and milliseconds (TestKernelTunerT4 and the
// convolution's A100_T4 file).
func TestReadKTTT4(t *testing.T) {
	path := writeFile(t, t.TempDir(), "t4.json", `{"schema_version":"1.0.0","metadata":{"compute_api":"CUDA","device":"NVIDIA A100-PCIE-40GB",
		"autotuner":"KTT","timeunit":"microseconds"},"results":[
		{"configuration":{"BLOCK":"128","ALPHA":"0.500000","FLAG":"true"},"times":{"runtimes":[2500.0]},"invalidity":"correct","correctness":1,
		 "measurements":[{"name":"time","value":2500.0,"unit":""}]},
		{"configuration":{"BLOCK":"256","ALPHA":"1.000000","FLAG":"false"},"times":{"runtimes":[1.5]},"invalidity":"correct","correctness":1,
		 "measurements":[{"name":"time","value":1.5,"unit":"ms"}]}]}`, false)
	f, err := ReadKernelTuner(path, ImportOptions{Kernel: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range f.Rows {
		got = append(got, fmt.Sprintf("%s %g", SettingText(m.Setting, f.Kernel.Params), m.TimeMs))
	}
	slices.Sort(got)
	if want := []string{"ALPHA=0.5,BLOCK=128,FLAG=True 2.5", "ALPHA=1,BLOCK=256,FLAG=False 1.5"}; !slices.Equal(got, want) || f.Device.Name != "NVIDIA A100-PCIE-40GB" {
		t.Errorf("rows %v on %q; want %v on the A100", got, f.Device.Name, want)
	}
}

// A space.json typing parameters float and string: a T4 file beside it holds those values as
// the space's codes (KTT's strings "0.500000" included), and a value the space does not list is
// an error naming the field and the space.json.
func TestKernelTunerLabelledSpace(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "space.json", `{"KernelSpecification": {"KernelName": "k"}, "ConfigurationSpace": {"TuningParameters": [
		{"Name": "alpha", "Type": "float", "Values": "[0.5, 1.25]"},
		{"Name": "method", "Type": "string", "Values": "['fast', 'exact']"},
		{"Name": "bx", "Type": "int", "Values": "[32, 64]"}]}}`, false)
	row := func(alpha, method string, bx int, ms float64) string {
		return fmt.Sprintf(`{"configuration":{"alpha":%s,"method":%q,"bx":%d},"invalidity":"correct","times":{"runtimes":[%g]},"measurements":[{"name":"time","value":%g}]}`, alpha, method, bx, ms, ms)
	}
	t4 := writeFile(t, dir, "t4.json", `{"metadata":{"device":"NVIDIA A100-PCIE-40GB"},"results":[`+
		row("0.5", "fast", 32, 2)+","+row(`"1.250000"`, "exact", 64, 1)+"]}", false)
	f, err := ReadKernelTuner(t4, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range f.Rows {
		got = append(got, SettingText(m.Setting, f.Kernel.Params)+fmt.Sprintf(" %g", m.TimeMs))
	}
	if want := []string{"bx=32,alpha=0.5,method=fast 2", "bx=64,alpha=1.25,method=exact 1"}; !slices.Equal(got, want) {
		t.Errorf("rows %v; want %v", got, want)
	}
	if f.Kernel.Name != "k" || string(f.Kernel.Params[1].JSON(f.Rows[0].Setting["method"]).(json.RawMessage)) != `"fast"` {
		t.Errorf("kernel %q, params %+v", f.Kernel.Name, f.Kernel.Params)
	}
	bad := writeFile(t, dir, "bad.json", `{"metadata":{"device":"X"},"results":[`+row("0.75", "fast", 32, 2)+"]}", false)
	if _, err := ReadKernelTuner(bad, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "field results[0].configuration.alpha is 0.75, not one of the values") || !strings.Contains(err.Error(), "space.json gives it") {
		t.Errorf("a value the space lacks: %v", err)
	}
}

// FuzzReadKernelTuner: no file content makes ReadKernelTuner panic (a cache Kernel Tuner left
// half-written is read; anything else it cannot read is an error).
func FuzzReadKernelTuner(f *testing.F) {
	f.Add([]byte(`{"schema_version":"1.0.0","device_name":"NVIDIA A100-PCIE-40GB","kernel_name":"k","problem_size":[4096,4096],` +
		`"tune_params_keys":["block_size_x","tile"],"tune_params":{"block_size_x":[16,32],"tile":[1,2]},"objective":"time",` +
		`"cache":{"16,1":{"block_size_x":16,"tile":1,"time":3.87,"times":[3.9,3.8,3.87],"compile_time":9},"32,2":{"block_size_x":32,"tile":2,"time":1e20,"times":[]}}}`))
	f.Add([]byte(`{"device_name":"X","kernel_name":"k","problem_size":[1],"tune_params_keys":["a"],"tune_params":{"a":[1.5,"x"]},` +
		`"objective":"time","cache":{"1.5":{"a":1.5,"time":"RuntimeFailedConfig"},"x":{"a":"x","time":2.0,"times":[2.0]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "cache.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ReadKernelTuner(path, ImportOptions{Device: "D"})
	})
}
