package tuner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/ktdata"
)

// A cache without its space.json is tuned over the configurations it holds: the whole product
// of its parameter values would hold settings the replay cannot answer.
func TestOpenKernelTunerWithoutSpaceJSON(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// a in 1..3, b in 1..2: 6 combinations, of which the cache holds 3 (one failed to compile).
	small := filepath.Join(dir, "small.json")
	os.WriteFile(small, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a","b"],"tune_params":{"a":[1,2,3],"b":[1,2]},
		"objective":"time","cache":{"1,2":{"time":2},"2,1":{"time":1.5},"3,2":{"time":"CompilationFailedConfig"}}}`), 0o644)
	for _, tc := range []struct {
		name    string
		path    func(t *testing.T) string
		count   string
		optimum float64
	}{
		{"small", func(*testing.T) string { return small }, "3", 1.5},
		{"convolution A100", func(t *testing.T) string {
			data, err := os.ReadFile(filepath.Join(ktdata.Require(t, "convolution_milo"), "convolution_milo", "A100.json.gz"))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "A100.json.gz")
			os.WriteFile(path, data, 0o644)
			return path
		}, "4362", 0.5536000076681376},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t)
			k, err := OpenKernelTuner(ctx, path, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Space.Count().String(); got != tc.count {
				t.Errorf("the space holds %s settings; want the %s configurations of the file", got, tc.count)
			}
			if !strings.Contains(k.Note, "no space.json") || !strings.Contains(k.Note, path) {
				t.Errorf("note %q does not say that %s has no space.json beside it", k.Note, path)
			}
			// Every setting of the space replays: the exhaustive search reads them all.
			opt, _, err := Optimum(ctx, k.Problem())
			if err != nil || opt != tc.optimum {
				t.Errorf("optimum %v, %v; want %v", opt, err, tc.optimum)
			}
			if _, err := Search(ctx, k.Problem(), Budget{Evaluations: 20}, &Random{}, 1); err != nil {
				t.Errorf("random search: %v", err)
			}
		})
	}
	k, _ := OpenKernelTuner(ctx, small, "")
	if err := k.Space.Check(smart.Setting{"a": 1, "b": 1}); err == nil || !strings.Contains(err.Error(), "no configuration of the replayed data has these values") {
		t.Errorf("a setting the file lacks: %v", err)
	}
}

func TestOpenKernelTunerEmptyCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.json")
	os.WriteFile(path, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},"objective":"time","cache":{}}`), 0o644)
	_, err := OpenKernelTuner(context.Background(), path, "")
	if err == nil || !strings.Contains(err.Error(), path+" holds no configurations") {
		t.Errorf("error %v; want one saying that %s holds no configurations", err, path)
	}
}

// A cache of a boolean parameter with the space.json beside it that types it bool and
// restricts it by comparing with True: the space is the five configurations the restriction
// leaves (six of bx and shmem, less bx=64 without shared memory), each of which replays, and the
// restriction rejects the sixth. Before space.json's booleans were read, the file was refused.
func TestOpenKernelTunerBooleanSpace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cache := filepath.Join(dir, "A4000.json")
	os.WriteFile(cache, []byte(`{"device_name":"NVIDIA RTX A4000","kernel_name":"k","tune_params_keys":["bx","shmem"],
		"tune_params":{"bx":[16,32,64],"shmem":[false,true]},"objective":"time","cache":{
		"16,False":{"bx":16,"shmem":false,"time":1.25},"16,True":{"bx":16,"shmem":true,"time":0.75},
		"32,False":{"bx":32,"shmem":false,"time":1.5},"32,True":{"bx":32,"shmem":true,"time":1.0},
		"64,True":{"bx":64,"shmem":true,"time":1.5}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "space.json"), []byte(`{"ConfigurationSpace":{"TuningParameters":[
		{"Name":"bx","Type":"int","Values":"[16, 32, 64]"},{"Name":"shmem","Type":"bool","Values":"[False, True]"}],
		"Conditions":[{"Expression":"shmem == True or bx < 64"}]}}`), 0o644)
	k, err := OpenKernelTuner(ctx, cache, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Space.Count().String(); got != "5" || k.Note != "" {
		t.Errorf("the space holds %s settings (note %q); want the 5 the restriction leaves", got, k.Note)
	}
	if err := k.Space.Check(smart.Setting{"bx": 64, "shmem": 0}); err == nil || !strings.Contains(err.Error(), "shmem == True or bx < 64") {
		t.Errorf("bx=64 without shared memory: %v; want the restriction to reject it", err)
	}
	opt, n, err := Optimum(ctx, k.Problem())
	if err != nil || opt != 0.75 || n != 5 {
		t.Errorf("optimum %v over %d settings, %v; want 0.75 over 5", opt, n, err)
	}
}

// A space.json with a float and a string parameter whose condition reads their values: the
// cache's codes are decoded, so the space is the configurations Kernel Tuner would enumerate.
func TestOpenKernelTunerLabelledSpace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cache := filepath.Join(dir, "A4000.json")
	os.WriteFile(cache, []byte(`{"device_name":"NVIDIA RTX A4000","kernel_name":"k","tune_params_keys":["alpha","method"],
		"tune_params":{"alpha":[0.5,1.25],"method":["fast","exact"]},"objective":"time","cache":{
		"0.5,fast":{"time":1.25},"0.5,exact":{"time":1.5},"1.25,exact":{"time":1.0}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "space.json"), []byte(`{"ConfigurationSpace":{"TuningParameters":[
		{"Name":"alpha","Type":"float","Values":"[0.5, 1.25]"},{"Name":"method","Type":"string","Values":"['fast', 'exact']"}],
		"Conditions":[{"Expression":"alpha < 1 or method != 'fast'"}]}}`), 0o644)
	k, err := OpenKernelTuner(ctx, cache, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Space.Count().String(); got != "3" || k.Note != "" {
		t.Errorf("the space holds %s settings (note %q); want the 3 the restriction leaves", got, k.Note)
	}
	opt, n, err := Optimum(ctx, k.Problem())
	if err != nil || opt != 1.0 || n != 3 {
		t.Errorf("optimum %v over %d settings, %v; want 1.0 over 3", opt, n, err)
	}
}

// The conditions of a space.json are its own: an expression that does not parse, or reads a
// name that is no parameter, is reported as the space.json's, not the cache's; conditions that
// leave nothing say so, not that the search found no valid setting.
func TestOpenKernelTunerSpaceJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		name, condition string
		want            []string
	}{
		{"unparsable", "a < 3 +", []string{"space.json: ", `"a < 3 +"`, "column"}},
		{"unknown name", "c < 3", []string{"space.json: ", `"c < 3"`, "reads c"}},
		{"nothing left", "a > 5", []string{"space.json: ", "(a > 5) leave kernel k no configuration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cache := filepath.Join(dir, "A4000.json")
			os.WriteFile(cache, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a","b"],"tune_params":{"a":[1,2],"b":[1,2]},
				"objective":"time","cache":{"1,1":{"time":1},"1,2":{"time":2},"2,1":{"time":3},"2,2":{"time":4}}}`), 0o644)
			os.WriteFile(filepath.Join(dir, "space.json"), []byte(`{"ConfigurationSpace":{"TuningParameters":[
				{"Name":"a","Type":"int","Values":"[1, 2]"},{"Name":"b","Type":"int","Values":"[1, 2]"}],
				"Conditions":[{"Expression":"`+tc.condition+`"}]}}`), 0o644)
			_, err := OpenKernelTuner(context.Background(), cache, "")
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "space.json")+": ") {
				t.Fatalf("error %v; want one naming %s", err, filepath.Join(dir, "space.json"))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A data set of imported caches tunes as the caches do: on its one device, or the one named
// where it holds several, over the space its meta.json's conditions make.
func TestOpenKernelTunerDataSet(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	for _, dev := range []string{"A", "B"} {
		os.WriteFile(filepath.Join(src, dev+".json"), []byte(`{"device_name":"`+dev+`","kernel_name":"k","tune_params_keys":["a","b"],
			"tune_params":{"a":[1,2],"b":[1,2]},"objective":"time","cache":{"1,1":{"time":1},"1,2":{"time":2},"2,1":{"time":3}}}`), 0o644)
	}
	os.WriteFile(filepath.Join(src, "space.json"), []byte(`{"ConfigurationSpace":{"TuningParameters":[
		{"Name":"a","Type":"int","Values":"[1, 2]"},{"Name":"b","Type":"int","Values":"[1, 2]"}],
		"Conditions":[{"Expression":"a + b < 4"}]}}`), 0o644)
	one, both := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "both")
	if _, err := dataset.Import(ctx, one, []string{filepath.Join(src, "A.json")}, dataset.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.Import(ctx, both, []string{filepath.Join(src, "A.json"), filepath.Join(src, "B.json")}, dataset.ImportOptions{AllowMixed: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, device, want, err string
	}{
		{one, "", "A", ""},
		{both, "b", "B", ""},
		{both, "", "", `holds kernel k measured on 2 devices ("A", "B")`},
		{one, "C", "", `holds no rows of kernel k on "C"`},
	} {
		k, err := OpenKernelTuner(ctx, tc.dir, tc.device)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s on %q: error %v; want %q", tc.dir, tc.device, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s on %q: %v", tc.dir, tc.device, err)
		}
		opt, n, err := Optimum(ctx, k.Problem())
		if k.Device != tc.want || k.DeviceGiven != (tc.device != "") || k.Format != "dataset" || err != nil || opt != 1 || n != 3 {
			t.Errorf("%s on %q: device %q (given %v), format %s, optimum %v of %d, %v; want device %q, optimum 1 of the 3 settings",
				tc.dir, tc.device, k.Device, k.DeviceGiven, k.Format, opt, n, err, tc.want)
		}
	}
}

// A cache and its T4 twin (the same configurations and times, under other device names) hold
// the same measurements; another GPU's cache does not.
func TestSameMeasurements(t *testing.T) {
	dir := t.TempDir()
	open := func(name, device, times string) *KernelTuner {
		t.Helper()
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(`{"device_name":"`+device+`","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},
			"objective":"time","cache":`+times+`}`), 0o644)
		k, err := OpenKernelTuner(context.Background(), path, "")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	a := open("a.json", "A100", `{"1":{"time":1},"2":{"time":2}}`)
	twin := open("twin.json", "A100_T4", `{"2":{"time":2},"1":{"time":1}}`)
	other := open("other.json", "V100", `{"1":{"time":1},"2":{"time":3}}`)
	if !a.SameMeasurements(twin) || a.SameMeasurements(other) {
		t.Errorf("same as its twin %v, as another GPU's %v; want true, false", a.SameMeasurements(twin), a.SameMeasurements(other))
	}
}

// A cache that lacks configurations its space.json allows (one written by a search that did not
// try them all) says so when opened, and what to do for the error of a search that meets one:
// the replay stops there, as Kernel Tuner's simulation mode does. A complete cache says nothing.
func TestOpenKernelTunerIncompleteCache(t *testing.T) {
	for _, tc := range []struct {
		name, cache string
		note        []string
	}{
		{"complete", `"1,1":{"time":1},"1,2":{"time":2},"2,1":{"time":3}`, nil},
		{"lacking one", `"1,1":{"time":1},"2,1":{"time":3}`, []string{"holds 2 of the 3 configurations of k that", "space.json allows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cache := filepath.Join(dir, "A4000.json")
			os.WriteFile(cache, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a","b"],"tune_params":{"a":[1,2],"b":[1,2]},
				"objective":"time","cache":{`+tc.cache+`}}`), 0o644)
			os.WriteFile(filepath.Join(dir, "space.json"), []byte(`{"ConfigurationSpace":{"TuningParameters":[
				{"Name":"a","Type":"int","Values":"[1, 2]"},{"Name":"b","Type":"int","Values":"[1, 2]"}],
				"Conditions":[{"Expression":"a + b < 4"}]}}`), 0o644)
			k, err := OpenKernelTuner(context.Background(), cache, "")
			if err != nil {
				t.Fatal(err)
			}
			if tc.note == nil {
				if k.Note != "" || k.Incomplete != "" {
					t.Errorf("note %q, incomplete %q; want neither", k.Note, k.Incomplete)
				}
				return
			}
			for _, w := range tc.note {
				if !strings.Contains(k.Note, w) {
					t.Errorf("note %q lacks %q", k.Note, w)
				}
			}
			if want := "move " + filepath.Join(dir, "space.json") + " away"; !strings.Contains(k.Incomplete, want) {
				t.Errorf("incomplete %q lacks %q", k.Incomplete, want)
			}
			_, _, err = Optimum(context.Background(), k.Problem())
			if !errors.Is(err, dataset.ErrNotMeasured) || !strings.Contains(err.Error(), "k a=1,b=2 on X") {
				t.Errorf("the exhaustive search: %v; want the replay's error naming k a=1,b=2", err)
			}
		})
	}
}

// A data set of several devices opened on none, or on one it lacks, is a *DeviceError that
// lists the devices with their catalogue GPUs.
func TestOpenKernelTunerDeviceError(t *testing.T) {
	ctx := context.Background()
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "both")
	var files []string
	for _, dev := range []string{"NVIDIA RTX A4000", "NVIDIA A100-PCIE-40GB"} {
		f := filepath.Join(src, strings.ReplaceAll(dev, " ", "_")+".json")
		os.WriteFile(f, []byte(`{"device_name":"`+dev+`","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},
			"objective":"time","cache":{"1":{"time":1},"2":{"time":2}}}`), 0o644)
		files = append(files, f)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.Import(ctx, dir, files, dataset.ImportOptions{AllowMixed: true, Resolve: cat.Resolve}); err != nil {
		t.Fatal(err)
	}
	held := `"NVIDIA RTX A4000" (RTX-A4000), "NVIDIA A100-PCIE-40GB" (A100-40GB)`
	for _, tc := range []struct {
		device, want string
	}{
		{"", "holds kernel k measured on 2 devices (" + held + "); name the one to tune on"},
		{"H100-SXM", `holds no rows of kernel k on "H100-SXM"; it holds ` + held},
	} {
		_, err := OpenKernelTuner(ctx, dir, tc.device)
		var de *DeviceError
		if !errors.As(err, &de) || de.Device != tc.device || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("on %q: %v; want a *DeviceError ending %q", tc.device, err, tc.want)
		}
	}
}
