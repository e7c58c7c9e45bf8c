package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"smart"
	"smart/internal/jsonerr"
	"smart/space"
)

// ImportOptions say what Kernel Tuner files leave out.
type ImportOptions struct {
	// Device names the device of files that do not: T4 files, and caches whose device_name is
	// empty (the MI250X files of benchmark_hub).
	Device string
	// Kernel names the kernel of T4 files that have no space.json beside them.
	Kernel string
	// AllowMixed lets files of several devices go into one data set.
	AllowMixed bool
	// Resolve maps a device name to its GPU catalogue name; nil, or false, leaves the GPU column
	// empty and the device name stands alone.
	Resolve func(device string) (gpu string, ok bool)
	// Progress, when set, is called by Import after each file read with (done, total) files.
	Progress func(done, total int)
}

// Errors of files that leave out what ImportOptions can give.
var (
	ErrNoDevice = errors.New("the file does not name its device")                                   // ImportOptions.Device
	ErrNoKernel = errors.New("a T4 file does not name its kernel and no space.json sits beside it") // ImportOptions.Kernel
)

// KernelTunerFile is a Kernel Tuner cache file or T4 results file read into rows.
type KernelTunerFile struct {
	Path   string
	Format string // "cache" or "t4"
	Device Device
	// DeviceGiven is true when the file does not name its device and ImportOptions.Device did.
	DeviceGiven bool
	Kernel      Kernel
	// SpaceFile is the space.json beside the file whose constraints Kernel carries; empty when
	// there is none, and then the constraints of the kernel's space are unknown.
	SpaceFile string
	// Open is true for a cache Kernel Tuner had not closed: the run was stopped, or still runs.
	// Torn is true where its last line, a configuration cut in the middle, was left out.
	Open, Torn bool
	// Source is the rows' source: imported, or predicted for a cache of smart's predictions
	// (smart transfer -o), whose measured shots say predicted too, as in its data sets.
	Source smart.Source
	Rows   []smart.Measurement // in parameter-value order
}

// OpenNote says of a cache Kernel Tuner had not closed that it was read as Kernel Tuner reads it,
// and what was left out: a reader of anything made from it should know that the file may lack
// configurations. It is "" for a closed file.
func (f *KernelTunerFile) OpenNote() string {
	if !f.Open {
		return ""
	}
	return openNote(f.Path, f.Torn)
}

func openNote(path string, torn bool) string {
	note := path + ": a cache Kernel Tuner had not closed (its run was stopped, or still runs); read as Kernel Tuner reads it"
	if torn {
		note += ", without its last line, a configuration cut in the middle"
	}
	return note
}

// ReadKernelTuner reads a Kernel Tuner cache file (.json, or .json.gz) or a T4 results file.
// Every configuration becomes a row: source imported (predicted in a cache of smart's own
// predictions), device the file's device_name, GPU the catalogue name where opt.Resolve knows
// it. A configuration that failed (a string in its time, Kernel Tuner 0.4's time of 1e20, or a
// T4 invalidity) becomes a row with the matching status:
//
//	CompilationFailedConfig, T4 "compile"            compile_error
//	RuntimeFailedConfig, ErrorConfig, T4 "runtime"   launch_error
//	1e20 (Kernel Tuner 0.4: compile or run failed)   launch_error
//	InvalidConfig, T4 "constraints"                  invalid
//	T4 "correctness"                                 wrong_result
//	T4 "timeout"                                     timeout
//
// Times: time_ms is the median of the file's repeated runs, min, max and std (n-1) are theirs,
// mean_ms is the time Kernel Tuner reported (the mean of the runs), reps their number. A cache
// tuned for another objective (GFLOP/s, energy) still records each configuration's time, which is
// what smart reads.
//
// When a space.json (benchmark_hub format) sits beside the file, its constraint expressions are
// carried in Kernel.Constraints, and it names the kernel and parameter values of T4 files. A
// file without configurations is an error.
func ReadKernelTuner(path string, opt ImportOptions) (*KernelTunerFile, error) {
	file, open, torn, err := decodeKernelTuner(path)
	if err != nil {
		return nil, err
	}
	sp, err := readBenchmarkSpace(filepath.Join(filepath.Dir(path), "space.json"))
	if err != nil {
		return nil, err
	}
	var f *KernelTunerFile
	switch {
	case file.Cache != nil:
		f, err = readCache(path, file, sp)
	case file.Results != nil:
		f, err = readT4(path, file, sp, opt)
	default:
		return nil, fmt.Errorf("%s: neither a Kernel Tuner cache (no field \"cache\") nor a T4 file (no field \"results\")", path)
	}
	if err != nil {
		return nil, err
	}
	f.Open, f.Torn, f.Source = open, torn, smart.Imported
	if file.Smart != nil && file.Smart.Source == smart.Predicted {
		f.Source = smart.Predicted
	}
	for _, n := range [...]struct{ field, name string }{{"device_name", f.Device.Name}, {"kernel_name", f.Kernel.Name}} {
		if strings.ContainsFunc(n.name, unicode.IsControl) {
			// The names go into tables, CSV rows and terminals, where a control character
			// could rewrite what is shown.
			return nil, fmt.Errorf("%s: field %s is %q, which holds a control character; use printable text", path, n.field, n.name)
		}
	}
	if f.Device.Name == "" {
		if opt.Device == "" {
			return nil, fmt.Errorf("%s: %w", path, ErrNoDevice)
		}
		f.Device.Name, f.DeviceGiven = opt.Device, true
	}
	if opt.Resolve != nil {
		if gpu, ok := opt.Resolve(f.Device.Name); ok {
			f.Device.GPU = gpu
		}
	}
	if sp != nil {
		f.SpaceFile = sp.path
	}
	f.Kernel.Files = []string{path}
	for i := range f.Rows {
		f.Rows[i].Kernel, f.Rows[i].Device, f.Rows[i].GPU, f.Rows[i].Source = f.Kernel.Name, f.Device.Name, f.Device.GPU, f.Source
	}
	slices.SortStableFunc(f.Rows, func(a, b smart.Measurement) int { return compareSettings(f.Kernel.Params, a.Setting, b.Setting) })
	return f, nil
}

func compareSettings(params []Param, a, b smart.Setting) int {
	for _, p := range params {
		if c := cmp.Compare(a[p.Name], b[p.Name]); c != 0 {
			return c
		}
	}
	return 0
}

// ktFile is a Kernel Tuner cache or T4 file: the two formats share no field, so one decoding
// pass reads either. The fields are not embedded from a type per format because a decoding
// error would then name that type in its field path.
type ktFile struct {
	// A cache.
	DeviceName     string                       `json:"device_name"`
	KernelName     string                       `json:"kernel_name"`
	ProblemSize    json.RawMessage              `json:"problem_size"`
	TuneParamsKeys []string                     `json:"tune_params_keys"`
	TuneParams     map[string][]json.RawMessage `json:"tune_params"`
	Cache          map[string]ktRecord          `json:"cache"`
	// Smart is the note of a cache of smart's predictions (transfer.KernelTunerCache).
	Smart *struct {
		Source smart.Source `json:"source"`
	} `json:"smart"`

	// A T4 file (or KTT's own JSON, which decodeKernelTuner reads as one: ktt).
	SchemaVersion string     `json:"schema_version"`
	Metadata      t4Metadata `json:"metadata"`
	Results       []t4Result `json:"results"`
	ktt           bool
}

// t4Metadata is what smart reads of a T4 file's metadata.
type t4Metadata struct {
	Device   string `json:"device"`
	TimeUnit string `json:"timeunit"` // of every time in the file; Kernel Tuner's milliseconds where empty
}

// t4Result is one configuration of a T4 file.
type t4Result struct {
	Configuration map[string]json.RawMessage `json:"configuration"`
	Times         struct {
		Runtimes []float64 `json:"runtimes"`
	} `json:"times"`
	Invalidity   string `json:"invalidity"`
	Measurements []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"measurements"`
}

// decodeKernelTuner decodes the Kernel Tuner file at path, gzip-compressed or not. Kernel Tuner
// keeps its cache open while it tunes (without the two closing braces, a configuration a line,
// each but the last followed by a comma) and closes it when the run ends; it reads a cache it
// did not close as if closed, and so does this (open). A run killed while writing a line leaves
// a configuration cut in the middle, which is left out (torn): the configurations before it are
// whole.
func decodeKernelTuner(path string) (file *ktFile, open, torn bool, err error) {
	data, err := ReadMaybeGzip(path)
	if err != nil {
		return nil, false, false, err
	}
	data = nullPythonFloats(data)
	file, err = decodeKT(data)
	switch {
	case err == nil:
		return file, false, false, nil
	case !errors.Is(err, io.ErrUnexpectedEOF):
		// KTT's own JSON lists each configuration's values, which a T4 file maps: read only
		// when the Kernel Tuner forms fail, so that a cache is parsed once.
		if k, ok, kerr := decodeKTT(data); ok {
			if kerr != nil {
				return nil, false, false, fmt.Errorf("%s: not a KTT file: %w", path, kerr)
			}
			return k, false, false, nil
		}
		return nil, false, false, fmt.Errorf("%s: not a Kernel Tuner file: %w", path, jsonerr.Describe(err))
	}
	body := bytes.TrimRightFunc(data, unicode.IsSpace)
	if f, err2 := decodeKT(closeCache(body)); err2 == nil && f.Cache != nil {
		return f, true, false, nil
	}
	if i := bytes.LastIndexByte(body, '\n'); i > 0 {
		if f, err2 := decodeKT(closeCache(body[:i])); err2 == nil && f.Cache != nil {
			return f, true, true, nil
		}
	}
	return nil, false, false, fmt.Errorf("%s: not a Kernel Tuner file: %w", path, jsonerr.Describe(err))
}

// pythonFloats are what Python's json module writes for floats that are not numbers, which JSON
// lacks.
var pythonFloats = [...]string{"NaN", "Infinity", "-Infinity"}

// nullPythonFloats replaces pythonFloats (a metric or observer reading of a cache) by null
// outside strings, and the value of a "time" by the token as a string, so that the refusal of
// such a time says what the file holds; other fields are not read. data is returned as it is
// where it holds none.
func nullPythonFloats(data []byte) []byte {
	var out []byte // nil until a token is replaced
	inString, escaped, last := false, false, 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		for _, tok := range pythonFloats {
			if c == tok[0] && bytes.HasPrefix(data[i:], []byte(tok)) {
				repl := "null"
				if timeValue(data[:i]) {
					repl = `"` + tok + `"`
				}
				out = append(append(out, data[last:i]...), repl...)
				i += len(tok) - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// timeValue reports whether before ends with the key "time" and its colon: a value that
// follows is a configuration's time.
func timeValue(before []byte) bool {
	before, colon := bytes.CutSuffix(bytes.TrimRightFunc(before, unicode.IsSpace), []byte(":"))
	return colon && bytes.HasSuffix(bytes.TrimRightFunc(before, unicode.IsSpace), []byte(`"time"`))
}

// closeCache closes an open cache as Kernel Tuner does: without a trailing comma, and with the
// braces of "cache" and of the file.
func closeCache(body []byte) []byte {
	body = bytes.TrimSuffix(bytes.TrimRightFunc(body, unicode.IsSpace), []byte(","))
	return append(slices.Clip(body), "}\n}"...)
}

func decodeKT(data []byte) (*ktFile, error) {
	var f ktFile
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&f); err != nil {
		return nil, err
	}
	return &f, nil
}

// ReadMaybeGzip reads the file at path, decompressed where it is gzip-compressed (by its magic
// number, whatever its name).
func ReadMaybeGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	data, err := io.ReadAll(r)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: the compressed file is cut short: %w", path, err)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// benchmarkSpace is what a benchmark_hub space.json says that a data set carries.
type benchmarkSpace struct {
	path        string
	kernel      string
	params      []Param
	constraints []string
	problemSize []int
}

// readBenchmarkSpace reads path, or returns nil when there is no such file.
func readBenchmarkSpace(path string) (*benchmarkSpace, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	spec, err := space.ParseBenchmarkSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var raw struct {
		KernelSpecification struct {
			KernelName  string          `json:"KernelName"`
			ProblemSize json.RawMessage `json:"ProblemSize"`
		} `json:"KernelSpecification"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a benchmark_hub space description: %w", path, jsonerr.Describe(err))
	}
	sp := &benchmarkSpace{path: path, kernel: raw.KernelSpecification.KernelName, constraints: spec.Conditions}
	for _, p := range spec.Params {
		sp.params = append(sp.params, Param{Name: p.Name, Values: p.Values, Bool: p.Bool, Labels: p.Labels})
	}
	sp.problemSize, _ = intList(raw.KernelSpecification.ProblemSize)
	return sp, nil
}

// matches checks that the space describes a kernel with these parameters.
func (sp *benchmarkSpace) matches(dataPath string, names []string) error {
	var have []string
	for _, p := range sp.params {
		have = append(have, p.Name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(have)), slices.Sorted(slices.Values(names))) {
		return fmt.Errorf("%s lists parameters %s, but %s has %s; it describes another kernel: move it away or fix it", sp.path, strings.Join(have, ","), dataPath, strings.Join(names, ","))
	}
	return nil
}

// intList reads a JSON array of integers, or a single integer.
func intList(raw json.RawMessage) ([]int, bool) {
	var v []int
	if json.Unmarshal(raw, &v) == nil {
		return v, true
	}
	var one int
	if json.Unmarshal(raw, &one) == nil {
		return []int{one}, true
	}
	return nil, false
}

// cacheParam reads a parameter's values in a cache's tune_params: integers, booleans (as 0 and
// 1), or else labels (numbers not written as integers, 1.0 too, and strings), each held as its
// LabelCode.
// Errors begin with the parameter's name, for the field.
func cacheParam(name string, raws []json.RawMessage) (Param, error) {
	p := Param{Name: name}
	if len(raws) == 0 {
		return p, fmt.Errorf("%s has no values", name)
	}
	bools, labelled := 0, false
	for _, raw := range raws {
		v, isBool, ok := paramValue(raw)
		if !ok {
			labelled = true
			break
		}
		if isBool {
			bools++
		}
		p.Values = append(p.Values, v)
	}
	if !labelled {
		p.Bool = bools == len(p.Values)
		return p, nil
	}
	p.Values = nil
	seen := map[string]bool{}
	for i, raw := range raws {
		raw = bytes.TrimSpace(raw)
		code, err := space.LabelCode(raw)
		if err != nil {
			return p, fmt.Errorf("%s[%d]: %w", name, i, err)
		}
		if slices.Contains(p.Values, code) {
			return p, fmt.Errorf("%s[%d] is %s, whose code %d another value of %s has", name, i, raw, code, name)
		}
		p.Values, p.Labels = append(p.Values, code), append(p.Labels, slices.Clone(raw))
		text := p.Text(code)
		if strings.Contains(text, ",") || seen[text] {
			// A cache's key joins the values with commas, so such a value cannot be told apart.
			return p, fmt.Errorf("%s[%d] is %s, which a cache's key cannot hold apart from the others", name, i, raw)
		}
		seen[text] = true
	}
	return p, nil
}

// unquoteNumber is raw, or where raw is a string holding a number or a boolean (KTT's T4 files
// hold every value as a string: "128", "0.500000", "true"), that number or boolean.
func unquoteNumber(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	if s == "true" || s == "false" {
		return json.RawMessage(s)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		if b, err := json.Marshal(f); err == nil {
			return b
		}
	}
	return raw
}

// timeUnit is the factor that turns times in unit (T4's or KTT's names of it, any case, or an
// abbreviation; empty: Kernel Tuner's milliseconds) into milliseconds.
func timeUnit(unit string) (float64, error) {
	switch strings.ToLower(unit) {
	case "", "ms", "milliseconds", "millisecond", "miliseconds":
		return 1, nil
	case "s", "seconds", "second":
		return 1e3, nil
	case "us", "µs", "microseconds", "microsecond":
		return 1e-3, nil
	case "ns", "nanoseconds", "nanosecond":
		return 1e-6, nil
	}
	return 0, fmt.Errorf("%q is no time unit; T4 uses nanoseconds, microseconds, milliseconds or seconds", unit)
}

// sameLabel reports whether two labels hold the same value (0.5 and 0.50 do), not two values
// that share a code.
func sameLabel(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && x == y
}

// paramValue reads a parameter value: an integer, or a boolean as 1 or 0 (isBool).
func paramValue(raw json.RawMessage) (v int, isBool, ok bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return 1, true, true
	case "false":
		return 0, true, true
	}
	v, ok = integer(raw)
	return v, false, ok
}

// keyValue reads a parameter value from a cache's key, where Kernel Tuner writes each as Python
// prints it: True and False for booleans.
func keyValue(s string) (int, bool) {
	switch s {
	case "True":
		return 1, true
	case "False":
		return 0, true
	}
	return integer(json.RawMessage(s))
}

// integer reads a parameter value written as an integer; smart settings hold integers. A
// number written with a fraction or an exponent is a float, 1.0 too: Kernel Tuner's keys print
// it as Python does ("1.0"), so it is a label, which keeps that spelling.
func integer(raw json.RawMessage) (int, bool) {
	raw = bytes.TrimSpace(raw)
	var f float64
	if string(raw) == "null" || bytes.ContainsAny(raw, ".eE") || json.Unmarshal(raw, &f) != nil || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

// ktRecord is what smart reads of a cache entry; the parameters are read from its key, which
// holds their values in tune_params_keys order.
type ktRecord struct {
	Time  json.RawMessage `json:"time"`
	Times json.RawMessage `json:"times"` // decoded with the configuration's key at hand, for errors
}

func readCache(path string, c *ktFile, sp *benchmarkSpace) (*KernelTunerFile, error) {
	if len(c.TuneParamsKeys) == 0 {
		return nil, fmt.Errorf("%s: field tune_params_keys is missing or empty", path)
	}
	if len(c.Cache) == 0 {
		return nil, fmt.Errorf("%s holds no configurations (its field cache is empty); give a cache that Kernel Tuner has filled", path)
	}
	f := &KernelTunerFile{Path: path, Format: "cache", Device: Device{Name: c.DeviceName}, Kernel: Kernel{Name: c.KernelName}}
	if f.Kernel.Name == "" && sp != nil {
		f.Kernel.Name = sp.kernel
	}
	if f.Kernel.Name == "" {
		return nil, fmt.Errorf("%s: field kernel_name is missing or empty and no space.json beside it names the kernel; add \"kernel_name\"", path)
	}
	f.Kernel.ProblemSize, _ = intList(c.ProblemSize)
	keyValues := make([]map[string]int, len(c.TuneParamsKeys)) // a labelled parameter's key texts
	for k, name := range c.TuneParamsKeys {
		p, err := cacheParam(name, c.TuneParams[name])
		if err != nil {
			return nil, fmt.Errorf("%s: field tune_params.%w", path, err)
		}
		if p.Labels != nil {
			keyValues[k] = map[string]int{}
			for _, v := range p.Values {
				keyValues[k][p.Text(v)] = v
			}
		}
		f.Kernel.Params = append(f.Kernel.Params, p)
	}
	if sp != nil {
		if err := sp.matches(path, c.TuneParamsKeys); err != nil {
			return nil, err
		}
		f.Kernel.Constraints = sp.constraints
	}
	for key, rec := range c.Cache {
		field := func(name string) string { return fmt.Sprintf("cache[%q].%s", key, name) }
		m := smart.Measurement{Setting: smart.Setting{}}
		values := strings.Split(key, ",")
		if len(values) != len(c.TuneParamsKeys) {
			return nil, fmt.Errorf("%s: field cache[%q] has %d values in its key; tune_params_keys has %d", path, key, len(values), len(c.TuneParamsKeys))
		}
		for i, name := range c.TuneParamsKeys {
			v, ok := keyValue(values[i])
			if keyValues[i] != nil {
				v, ok = keyValues[i][values[i]]
				if code, err := space.LabelCode(json.RawMessage(values[i])); !ok && err == nil && slices.Contains(f.Kernel.Params[i].Values, code) {
					v, ok = code, true // a number printed otherwise than in tune_params ("0.50" for 0.5)
				}
			}
			if !ok {
				return nil, fmt.Errorf("%s: field cache[%q]: %s is %s, not one of its tune_params", path, key, name, values[i])
			}
			m.Setting[name] = v
		}
		var failure string
		named := bytes.HasPrefix(rec.Time, []byte(`"`)) && json.Unmarshal(rec.Time, &failure) == nil
		held := cmp.Or(string(rec.Time), "missing")
		if named && slices.Contains(pythonFloats[:], failure) { // NaN or infinite (nullPythonFloats)
			named, held = false, failure
		}
		if named {
			status, ok := map[string]smart.Status{
				"CompilationFailedConfig": smart.StatusCompileError,
				"RuntimeFailedConfig":     smart.StatusLaunchError,
				"ErrorConfig":             smart.StatusLaunchError,
				"InvalidConfig":           smart.StatusInvalid,
			}[failure]
			if !ok {
				return nil, fmt.Errorf("%s: field %s is %q, a failure smart does not know; known: CompilationFailedConfig, RuntimeFailedConfig, ErrorConfig, InvalidConfig", path, field("time"), failure)
			}
			m.Status, m.Error = status, "Kernel Tuner: "+failure
			f.Rows = append(f.Rows, m)
			continue
		}
		var mean float64
		err := json.Unmarshal(rec.Time, &mean)
		if err == nil && mean == failedTime {
			m.Status, m.Error = smart.StatusLaunchError, "Kernel Tuner: time 1e20 (failed to compile or run)"
			f.Rows = append(f.Rows, m)
			continue
		}
		if err != nil || !(mean >= MinTimeMs) || mean > maxRunMs {
			return nil, fmt.Errorf("%s: field %s is %s, neither a positive time in ms (%g to %g) nor a failure name", path, field("time"), held, MinTimeMs, float64(maxRunMs))
		}
		var times []float64
		if len(rec.Times) == 0 {
			rec.Times = json.RawMessage("null")
		}
		if err := json.Unmarshal(rec.Times, &times); err != nil {
			return nil, fmt.Errorf("%s: field %s: %w; give the runs' times in ms as a list of numbers", path, field("times"), jsonerr.Describe(err))
		}
		if err := setTimes(&m, mean, times); err != nil {
			return nil, fmt.Errorf("%s: field %s: %w", path, field("times"), err)
		}
		f.Rows = append(f.Rows, m)
	}
	return f, nil
}

// failedTime is the time Kernel Tuner 0.4 recorded for a configuration that failed to compile or
// run, before it named failures with strings.
const failedTime = 1e20

// maxRunMs bounds an imported time: eleven days a run is beyond any kernel measurement, and
// keeps the mean and spread of the runs finite.
const maxRunMs = 1e9

// setTimes fills an ok row from the reported time and the repeated runs behind it.
func setTimes(m *smart.Measurement, reported float64, runs []float64) error {
	m.Status = smart.StatusOK
	m.MeanMs = reported
	if len(runs) == 0 {
		m.TimeMs, m.MinMs, m.MaxMs = reported, reported, reported
		return nil
	}
	if !(slices.Min(runs) >= MinTimeMs) || !(slices.Max(runs) <= maxRunMs) {
		return fmt.Errorf("a run time is not a positive number of milliseconds from %g up to %g", MinTimeMs, float64(maxRunMs))
	}
	m.SetRuns(runs)
	m.MeanMs = reported // the mean Kernel Tuner reported, not that of the runs
	return nil
}

func readT4(path string, t *ktFile, sp *benchmarkSpace, opt ImportOptions) (*KernelTunerFile, error) {
	if len(t.Results) == 0 {
		return nil, fmt.Errorf("%s: field results is empty", path)
	}
	f := &KernelTunerFile{Path: path, Format: "t4", Device: Device{Name: t.Metadata.Device}, Kernel: Kernel{Name: cmp.Or(opt.Kernel, t.KernelName)}}
	if t.ktt {
		f.Format = "ktt"
	}
	scale, err := timeUnit(t.Metadata.TimeUnit)
	if err != nil {
		return nil, fmt.Errorf("%s: field metadata.timeunit: %w", path, err)
	}
	for _, r := range t.Results {
		for name, raw := range r.Configuration {
			r.Configuration[name] = unquoteNumber(raw) // KTT writes every value as a string
		}
	}
	var names []string
	if sp != nil {
		f.Kernel.Params, f.Kernel.Constraints, f.Kernel.ProblemSize = sp.params, sp.constraints, sp.problemSize
		f.Kernel.Name = cmp.Or(f.Kernel.Name, sp.kernel)
		for _, p := range sp.params {
			names = append(names, p.Name)
		}
	} else {
		names = slices.Sorted(maps.Keys(t.Results[0].Configuration)) // a JSON object's order is lost; any fixed order will do
	}
	if f.Kernel.Name == "" {
		return nil, fmt.Errorf("%s: %w", path, ErrNoKernel)
	}
	seen := make(map[string][]int, len(names))
	boolParams := map[string]bool{}
	// Without a space.json, a parameter some of whose values are neither integers nor booleans
	// (nor null) holds labels, each as its LabelCode, as in a cache.
	labels := map[string]map[int]json.RawMessage{}
	labelled := map[string]Param{} // with a space.json, its float and string parameters
	if sp != nil {
		for _, p := range sp.params {
			if p.Labels != nil {
				labelled[p.Name] = p
			}
		}
	} else {
		for _, r := range t.Results {
			for _, name := range names {
				raw := bytes.TrimSpace(r.Configuration[name])
				if _, _, ok := paramValue(raw); !ok && len(raw) > 0 && string(raw) != "null" && labels[name] == nil {
					labels[name] = map[int]json.RawMessage{}
				}
			}
		}
	}
	for i, r := range t.Results {
		field := func(name string) string { return fmt.Sprintf("results[%d].%s", i, name) }
		if len(r.Configuration) != len(names) {
			return nil, fmt.Errorf("%s: field %s has %d parameters; expected %d (%s)", path, field("configuration"), len(r.Configuration), len(names), strings.Join(names, ","))
		}
		m := smart.Measurement{Setting: smart.Setting{}}
		for _, name := range names {
			v, isBool, ok := paramValue(r.Configuration[name])
			if isBool {
				boolParams[name] = true
			}
			if labels[name] != nil {
				raw := bytes.TrimSpace(r.Configuration[name])
				code, err := space.LabelCode(raw)
				if err != nil {
					return nil, fmt.Errorf("%s: field %s: %w", path, field("configuration."+name), err)
				}
				if other, ok := labels[name][code]; !ok {
					labels[name][code] = slices.Clone(raw)
				} else if !sameLabel(other, raw) {
					return nil, fmt.Errorf("%s: field %s is %s, whose code %d %s has too", path, field("configuration."+name), raw, code, other)
				}
				v, ok = code, true
			}
			if p, isLabel := labelled[name]; isLabel {
				raw := bytes.TrimSpace(r.Configuration[name])
				code, err := space.LabelCode(raw)
				if err != nil || !slices.Contains(p.Values, code) {
					return nil, fmt.Errorf("%s: field %s is %s, not one of the values %s gives it", path, field("configuration."+name), cmp.Or(string(raw), "missing"), sp.path)
				}
				v, ok = code, true
			}
			if !ok {
				return nil, fmt.Errorf("%s: field %s is %s, not an integer", path, field("configuration."+name), cmp.Or(string(r.Configuration[name]), "missing"))
			}
			m.Setting[name] = v
			if !slices.Contains(seen[name], v) {
				seen[name] = append(seen[name], v)
			}
		}
		var reported json.RawMessage
		unit := scale
		for _, x := range r.Measurements {
			if x.Name == "time" {
				reported = x.Value
				if x.Unit != "" {
					if unit, err = timeUnit(x.Unit); err != nil {
						return nil, fmt.Errorf("%s: field %s: %w", path, field("measurements.unit"), err)
					}
				}
			}
		}
		if r.Invalidity != "correct" {
			status, ok := map[string]smart.Status{
				"compile":     smart.StatusCompileError,
				"runtime":     smart.StatusLaunchError,
				"timeout":     smart.StatusTimeout,
				"correctness": smart.StatusWrongResult,
				"constraints": smart.StatusInvalid,
			}[r.Invalidity]
			if !ok {
				return nil, fmt.Errorf("%s: field %s is %q; T4 uses correct, compile, runtime, timeout, correctness or constraints", path, field("invalidity"), r.Invalidity)
			}
			m.Status, m.Error = status, "T4 invalidity: "+r.Invalidity
			var failure string
			if json.Unmarshal(reported, &failure) == nil {
				m.Error += " (" + failure + ")"
			}
			f.Rows = append(f.Rows, m)
			continue
		}
		var mean float64
		if err := json.Unmarshal(reported, &mean); err != nil || !(mean*unit >= MinTimeMs) || mean*unit > maxRunMs {
			return nil, fmt.Errorf("%s: field %s has no time measurement", path, field("measurements"))
		}
		runs := make([]float64, len(r.Times.Runtimes))
		for k, t := range r.Times.Runtimes {
			runs[k] = t * unit
		}
		if err := setTimes(&m, mean*unit, runs); err != nil {
			return nil, fmt.Errorf("%s: field %s: %w", path, field("times.runtimes"), err)
		}
		f.Rows = append(f.Rows, m)
	}
	if sp == nil {
		for _, name := range names {
			vals := seen[name]
			slices.Sort(vals)
			p := Param{Name: name, Values: vals, Bool: boolParams[name]}
			if labels[name] != nil {
				for _, v := range vals {
					p.Labels = append(p.Labels, labels[name][v])
				}
			}
			f.Kernel.Params = append(f.Kernel.Params, p)
		}
	}
	return f, nil
}
