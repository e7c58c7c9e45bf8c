package dataset

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"smart"
	"smart/internal/atomicfile"
	"smart/internal/buildinfo"
	"smart/internal/jsonerr"
)

// Format is the version tag of the data set format this package writes. It reads FormatV2 and
// FormatV1 too, and appends to such a data set in its own format (rows.csv keeps its header,
// and the columns it lacks are not written).
const Format = "smart-dataset/3"

// FormatV2 is the format before rows.csv gained the columns regs and local_bytes.
const FormatV2 = "smart-dataset/2"

// FormatV1 is the format before rows.csv gained the columns runs and cut.
const FormatV1 = "smart-dataset/1"

// formats are the formats this package reads, the newest first.
var formats = []string{Format, FormatV2, FormatV1}

// File names inside a data set directory.
const (
	MetaFile    = "meta.json"
	RowsFile    = "rows.csv"
	StencilsDir = "stencils"
	LabelsFile  = "labels.json"
)

// Meta describes a data set: where its numbers come from and how its rows were chosen.
type Meta struct {
	Format  string    `json:"format"`
	Tool    string    `json:"tool_version"` // the smart build that wrote the data set
	Created time.Time `json:"created"`

	// Sources and Devices hold one entry each unless data sets were merged or imported with
	// AllowMixed; every row names its own source and device.
	Sources    []smart.Source `json:"sources"`
	Devices    []Device       `json:"devices"`
	AllowMixed bool           `json:"allow_mixed,omitempty"`

	// Params are the parameter columns of rows.csv, in order.
	Params []string `json:"params"`

	Plan       *Plan    `json:"plan,omitempty"`        // how the variants were chosen (smart bench)
	Shard      *Shard   `json:"shard,omitempty"`       // which part of the plan this data set runs
	Kernels    []Kernel `json:"kernels,omitempty"`     // foreign kernels (imported)
	MergedFrom []string `json:"merged_from,omitempty"` // data sets joined into this one
}

// Device is the GPU a data set's rows were measured on (or simulated for).
type Device struct {
	GPU      string `json:"gpu"`            // catalogue name; empty where the catalogue lacks the device
	Name     string `json:"name"`           // as the device names itself (NVML or the cache file)
	UUID     string `json:"uuid,omitempty"` // NVML
	Driver   string `json:"driver_version,omitempty"`
	CUDA     string `json:"cuda_version,omitempty"`
	CC       string `json:"compute_capability,omitempty"`
	NVMLName string `json:"nvml_name,omitempty"` // the NVML name where it differs from Name
	// Constants, of a device the analytic model simulates, say which of its constants timed
	// the rows; zero for a GPU, and for a simulated device of a data set written before smart
	// recorded them (unknown constants).
	Constants Constants `json:"constants,omitzero"`
}

// AnalyticModel is the name of a device the analytic model simulates. bench/defaults/simset
// names a calibration in the brackets: a simulated device's name begins with "analytic model".
const AnalyticModel = "analytic model (roofline)"

// The origins of the analytic model's constants (Constants.Origin).
const (
	ConstantsLiterature  = "literature"  // the model's own, from the literature (models/roofline)
	ConstantsCalibration = "calibration" // fitted to measurements by smart calibrate
)

// Constants say which constants of the analytic model simulated a device's rows: the same
// variants simulated with other constants have other times, and nothing else in a data set
// tells the two apart.
type Constants struct {
	Origin string `json:"origin"` // ConstantsLiterature or ConstantsCalibration
	// File is the calibration file as it was given (data/calibration/stencil.json: smart's own),
	// SHA256 the first 12 hex digits of the sha256 of its content (as sha256sum prints it), which
	// is what identifies the constants: a path can be written otherwise, or its file changed.
	File     string `json:"file,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	FittedOn string `json:"fitted_on,omitempty"` // what the calibration was fitted on, in short
}

// String names the constants as a data set's provenance shows them.
func (c Constants) String() string {
	switch c.Origin {
	case "":
		return "unknown constants (not recorded)"
	case ConstantsLiterature:
		return "the literature's constants"
	}
	about := "sha256 " + c.SHA256
	if c.FittedOn != "" {
		about += ", fitted on " + c.FittedOn
	}
	return fmt.Sprintf("the constants of calibration %s (%s)", c.File, about)
}

// Same reports whether c and o are the same constants: the same origin, and for a calibration
// the same content wherever its file was given from.
func (c Constants) Same(o Constants) bool { return c.Origin == o.Origin && c.SHA256 == o.SHA256 }

// check reports what is wrong with constants read from field (e.g. "devices[0].constants").
func (c Constants) check(field string) error {
	switch c.Origin {
	case "":
		if c != (Constants{}) {
			return fmt.Errorf("field \"%s.origin\" is empty; use %s or %s", field, ConstantsLiterature, ConstantsCalibration)
		}
	case ConstantsLiterature:
		if c.File != "" || c.SHA256 != "" || c.FittedOn != "" {
			return fmt.Errorf("field %q names a calibration file, but its origin is %s; a calibration's origin is %s", field, ConstantsLiterature, ConstantsCalibration)
		}
	case ConstantsCalibration:
		if c.File == "" || len(c.SHA256) != 12 || strings.Trim(c.SHA256, "0123456789abcdef") != "" {
			return fmt.Errorf("field %q: a calibration's constants need its file and the first 12 hex digits of its sha256 (file %q, sha256 %q)", field, c.File, c.SHA256)
		}
	default:
		return fmt.Errorf("field \"%s.origin\" is %q; use %s or %s", field, c.Origin, ConstantsLiterature, ConstantsCalibration)
	}
	return nil
}

// String names the device as messages show it: the catalogue's name, and what the device
// called itself with its driver where known.
func (d Device) String() string {
	about := []string{d.Name}
	if d.Driver != "" {
		about = append(about, "driver "+d.Driver)
	}
	if d.CUDA != "" {
		about = append(about, "CUDA "+d.CUDA)
	}
	return fmt.Sprintf("%s (%s)", cmp.Or(d.GPU, "not in the catalogue"), strings.Join(about, ", "))
}

// Kernel describes an imported foreign kernel: its tunable parameters and the constraints
// between them, for a tuner to search the same space.
type Kernel struct {
	Name        string   `json:"name"`
	Params      []Param  `json:"params"`
	Constraints []string `json:"constraints,omitempty"` // Kernel Tuner expressions from space.json, as written
	ProblemSize []int    `json:"problem_size,omitempty"`
	Files       []string `json:"files,omitempty"` // where it was imported from
}

// ID says which data set m describes, wherever it lies: a hash of its meta.json's content,
// which its creation time makes its own and appending rows leaves alone, so a copy has its
// original's ID (models.DataRef.ID).
func (m Meta) ID() string {
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Distinct refuses data sets that hold the same rows, which a reader of them all would count
// twice: one data set given twice (a copy, or a path written otherwise: the same ID), or a merge
// given with a data set it was merged from. metas[i] is the meta of dirs[i].
func Distinct(dirs []string, metas []Meta) error {
	byID := map[string]string{} // the directory of each data set, by its ID
	byPath := map[string]string{}
	for i, dir := range dirs {
		if prev, dup := byID[metas[i].ID()]; dup {
			return fmt.Errorf("data sets %s and %s are the same data set (one copies the other); give it once", prev, dir)
		}
		byID[metas[i].ID()] = dir
		if abs, err := filepath.Abs(dir); err == nil {
			byPath[abs] = dir
		}
	}
	for i, dir := range dirs {
		for _, from := range metas[i].MergedFrom { // absolute paths (Merge)
			if other, ok := byPath[from]; ok {
				return fmt.Errorf("data set %s was merged from %s, also given: its rows are among the merge's; give one of them", dir, other)
			}
		}
	}
	return nil
}

// Names are the kernel's parameter names, in order.
func (k Kernel) Names() []string {
	out := make([]string, len(k.Params))
	for i, p := range k.Params {
		out[i] = p.Name
	}
	return out
}

// Param is one tunable parameter of a foreign kernel and its values.
type Param struct {
	Name   string `json:"name"`
	Values []int  `json:"values"`
	// Bool is true for a Kernel Tuner parameter whose values are booleans (true and false,
	// "True" and "False" in a cache's keys): smart holds them as 1 and 0 and writes them back
	// as booleans.
	Bool bool `json:"bool,omitempty"`
	// Labels, for a Kernel Tuner parameter of non-integer values (floats, strings), hold each
	// value as the file does (JSON), Labels[i] that of Values[i], which is its code (space.LabelCode):
	// smart settings hold integers, and the codes are the same in every file of the kernel.
	Labels []json.RawMessage `json:"labels,omitempty"`
}

// Text is value v of p as a person reads it, and as Kernel Tuner prints it in a cache's key
// (Python's str): True or False for a boolean, a label's text (a string unquoted), else v.
func (p Param) Text(v int) string {
	switch {
	case p.Bool && v != 0:
		return "True"
	case p.Bool:
		return "False"
	}
	if i := slices.Index(p.Values, v); i >= 0 && i < len(p.Labels) {
		var text string
		if json.Unmarshal(p.Labels[i], &text) == nil {
			return text
		}
		return string(p.Labels[i])
	}
	return strconv.Itoa(v)
}

// SettingText is s as smart prints a setting, each value of a parameter among params as the
// parameter prints it (Param.Text): booleans and labels as Kernel Tuner holds them.
func SettingText(s smart.Setting, params []Param) string {
	text := s.String()
	if len(params) == 0 {
		return text
	}
	parts := strings.Split(text, ",")
	for i, part := range parts {
		name, _, _ := strings.Cut(part, "=")
		if k := slices.IndexFunc(params, func(p Param) bool { return p.Name == name }); k >= 0 {
			parts[i] = name + "=" + params[k].Text(s[name])
		}
	}
	return strings.Join(parts, ",")
}

// SettingValues is s with each value of a parameter among params as Kernel Tuner holds it
// (Param.JSON), as smart tune's best_values and smart transfer's values print it; nil without
// params.
func SettingValues(s smart.Setting, params []Param) map[string]any {
	if len(params) == 0 {
		return nil
	}
	out := make(map[string]any, len(s))
	for name, v := range s {
		if k := slices.IndexFunc(params, func(p Param) bool { return p.Name == name }); k >= 0 {
			out[name] = params[k].JSON(v)
		} else {
			out[name] = v
		}
	}
	return out
}

// JSON is value v of p as Kernel Tuner holds it in tune_params and in a configuration: a
// boolean, a label, or v.
func (p Param) JSON(v int) any {
	if p.Bool {
		return v != 0
	}
	if i := slices.Index(p.Values, v); i >= 0 && i < len(p.Labels) {
		return p.Labels[i]
	}
	return v
}

// Shard is part i (1 to N) of a plan split by stencil.
type Shard struct {
	I int `json:"i"`
	N int `json:"n"`
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// shardText names a data set's shard: "shard 1/2", or "no shard (every stencil)" for nil.
func shardText(s *Shard) string {
	if s == nil {
		return "no shard (every stencil)"
	}
	return "shard " + s.String()
}

// ToolVersion describes this build of smart from its build information.
func ToolVersion() string {
	return buildinfo.Current().Tool()
}

// ReadMeta reads and checks dir/meta.json.
func ReadMeta(dir string) (Meta, error) {
	path := filepath.Join(dir, MetaFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Meta{}, fmt.Errorf("%s is not a data set: it has no %s", dir, MetaFile)
	}
	if errors.Is(err, syscall.ENOTDIR) {
		// A data set's own rows.csv, given for its directory, is the usual slip.
		return Meta{}, fmt.Errorf("%s is not a data set: a data set is a directory (%s, %s); give the directory", dir, MetaFile, RowsFile)
	}
	if err != nil {
		return Meta{}, err
	}
	var m Meta
	// As rows.csv, a meta.json an editor saved with a byte-order mark reads as without one.
	dec := json.NewDecoder(bytes.NewReader(jsonerr.TrimBOM(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		if name, ok := jsonerr.UnknownField(err); ok {
			return Meta{}, fmt.Errorf("%s: %q is not a field of the format: an edit, or a newer smart wrote it", path, name)
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return Meta{}, fmt.Errorf("%s: invalid JSON at byte %d: %w", path, syn.Offset, err)
		case errors.As(err, &typ):
			return Meta{}, fmt.Errorf("%s: field %q has a JSON %s where %s is expected", path, typ.Field, typ.Value, jsonerr.Expected(typ.Type))
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return Meta{}, fmt.Errorf("%s: the file is empty or cut short", path)
		}
		return Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	if !slices.Contains(formats, m.Format) {
		return Meta{}, fmt.Errorf("%s: field \"format\" is %q; this version of smart reads %q, %q and %q", path, m.Format, Format, FormatV2, FormatV1)
	}
	if err := m.check(); err != nil {
		return Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// check reports the first inconsistency of a meta record.
func (m *Meta) check() error {
	if len(m.Sources) == 0 {
		return errors.New(`field "sources" is empty; a data set says where its numbers come from`)
	}
	if len(m.Devices) == 0 {
		return errors.New(`field "devices" is empty; a data set names the device it was measured on`)
	}
	for i, s := range m.Sources {
		switch s {
		case smart.Measured, smart.Simulated, smart.Imported, smart.Predicted:
		default:
			return fmt.Errorf("field \"sources[%d]\" is %q; use measured, simulated, imported or predicted", i, s)
		}
	}
	for i, d := range m.Devices {
		if err := d.Constants.check(fmt.Sprintf("devices[%d].constants", i)); err != nil {
			return err
		}
	}
	if (len(m.Sources) > 1 || len(m.Devices) > 1) && !m.AllowMixed {
		return fmt.Errorf("it holds %d sources and %d devices but allow_mixed is false; data sets mix them only when asked to", len(m.Sources), len(m.Devices))
	}
	if _, err := newColumns(m.Format, m.Params); err != nil {
		return fmt.Errorf("field \"params\": %w", err)
	}
	if m.Plan != nil {
		if err := m.Plan.check(); err != nil {
			return fmt.Errorf("field \"plan\": %w", err)
		}
	}
	if m.Shard != nil && (m.Shard.N < 1 || m.Shard.I < 1 || m.Shard.I > m.Shard.N) {
		return fmt.Errorf("field \"shard\" is %s; a shard is i/n with 1 <= i <= n", m.Shard)
	}
	return nil
}

// hasSource reports whether s is one of the data set's sources.
func (m *Meta) hasSource(s smart.Source) bool { return slices.Contains(m.Sources, s) }

// simulated reports whether the analytic model simulated d, a device of m: it has constants,
// or, written before they were recorded, it is named as smart names such devices or the data
// set's rows are all simulated.
func (m *Meta) simulated(d Device) bool {
	return d.Constants.Origin != "" || m.hasSource(smart.Simulated) && (len(m.Sources) == 1 || strings.HasPrefix(d.Name, "analytic model"))
}

func writeMeta(dir string, m Meta) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", MetaFile, err)
	}
	return atomicfile.Write(filepath.Join(dir, MetaFile), append(data, '\n'))
}

// ReadStencil reads the stencil a data set's rows name by id (stencils/ID.json), and checks
// that the file holds that stencil: a file renamed or edited would train models on another
// stencil's features.
func ReadStencil(dir, id string) (*smart.Stencil, error) {
	path := filepath.Join(dir, StencilsDir, id+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: stencil %s of its rows: %w", dir, id, err)
	}
	st, err := smart.ParseStencil(data, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if got := st.ID(); got != id {
		return nil, fmt.Errorf("%s holds stencil %s, not %s: a data set's stencil file is named by the id of what it holds", path, got, id)
	}
	return st, nil
}
