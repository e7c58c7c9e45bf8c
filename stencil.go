package smart

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"smart/internal/english"
	"smart/internal/jsonerr"
)

// FormatV1 is the version tag of the stencil file format written and read by this package.
const FormatV1 = "smart-stencil/1"

// Dtype is the floating-point type of a stencil's grid.
type Dtype string

// The supported element types.
const (
	Float64 Dtype = "float64"
	Float32 Dtype = "float32"
)

// Size is the number of bytes of one element.
func (d Dtype) Size() int {
	if d == Float32 {
		return 4
	}
	return 8
}

// Offset is a neighbour's position relative to the centre, as (x, y, z); x is the contiguous axis.
// A 2-D stencil leaves z at 0.
type Offset [3]int

// Chebyshev returns the offset's Chebyshev distance from the centre, its order.
func (o Offset) Chebyshev() int {
	return max(abs(o[0]), abs(o[1]), abs(o[2]))
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Point is one access of a stencil: where it reads and the coefficient it multiplies by.
type Point struct {
	Off  Offset
	Coef float64
}

// Stencil is a validated stencil: a weighted sum of neighbours applied to every interior point
// of a grid for a number of time steps. Construct it with ParseStencil or NewStencil.
type Stencil struct {
	Name   string
	Dims   int
	Dtype  Dtype
	Grid   [3]int // extents along x, y, z; Grid[2] is 1 for 2-D
	Steps  int
	Points []Point
}

// Limits bound what a stencil may be; the zero value means the defaults.
type Limits struct {
	// MaxOrder is the largest Chebyshev distance of an access; 0 means DefaultMaxOrder.
	MaxOrder int
}

// Order limits and grid defaults.
const (
	DefaultMaxOrder = 4
	MaxMaxOrder     = 8
	DefaultSteps    = 10
	MaxSteps        = 1_000_000
	MaxExtent       = 1 << 20
	// MaxGridPoints bounds the whole grid (2^33 points is 64 GiB of float64 per buffer).
	MaxGridPoints = 1 << 33
	// MaxPoints is the most offsets a stencil can list: every offset of the 3-D cube of
	// radius MaxMaxOrder (17^3 = 4913); more must repeat one or lie beyond the largest order.
	MaxPoints = (2*MaxMaxOrder + 1) * (2*MaxMaxOrder + 1) * (2*MaxMaxOrder + 1)
	// MaxFileBytes bounds a stencil file: MaxPoints offsets and coefficients written one
	// number per line take about 400 kB, so a larger file is not a stencil, and reading it
	// whole would only cost time and memory before the error.
	MaxFileBytes = 1 << 20
)

// DefaultGrid returns the grid StencilMART measures on: 8192^2 for 2-D and 512^3 for 3-D.
func DefaultGrid(dims int) [3]int {
	if dims == 3 {
		return [3]int{512, 512, 512}
	}
	return [3]int{8192, 8192, 1}
}

func (l Limits) maxOrder() int {
	if l.MaxOrder == 0 {
		return DefaultMaxOrder
	}
	return l.MaxOrder
}

// FieldError is a validation failure that names the offending field of the stencil file.
type FieldError struct {
	Field   string // JSON path, e.g. "offsets[3]"
	Problem string // what is wrong and how to fix it
	Err     error  // a sentinel the problem is an instance of (ErrOrderLimit), or nil
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Problem) }

func (e *FieldError) Unwrap() error { return e.Err }

// ErrOrderLimit is the error of a stencil whose order exceeds the maximum it was read with
// (Limits.MaxOrder), as a *FieldError's Err.
var ErrOrderLimit = errors.New("order beyond the maximum")

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// Order is the stencil's order: the largest Chebyshev distance of its accesses.
func (s *Stencil) Order() int {
	r := 0
	for _, p := range s.Points {
		r = max(r, p.Off.Chebyshev())
	}
	return r
}

// NNZ is the number of accessed points, the centre included.
func (s *Stencil) NNZ() int { return len(s.Points) }

// Offsets returns the accessed offsets in file order.
func (s *Stencil) Offsets() []Offset {
	out := make([]Offset, len(s.Points))
	for i, p := range s.Points {
		out[i] = p.Off
	}
	return out
}

// GridPoints is the number of points of the grid.
func (s *Stencil) GridPoints() int64 {
	return int64(s.Grid[0]) * int64(s.Grid[1]) * int64(s.Grid[2])
}

// NewStencil builds and validates a stencil from offsets. Nil coefficients are derived with
// DeriveCoefficients; a zero grid or steps take the defaults.
func NewStencil(name string, dims int, offs []Offset, coefs []float64, lim Limits) (*Stencil, error) {
	if coefs == nil {
		coefs = DeriveCoefficients(offs)
	}
	if len(coefs) != len(offs) {
		return nil, fieldErr("coefficients", "has %s for %d offsets; give one per offset or none", english.Plural(len(coefs), "value"), len(offs))
	}
	s := &Stencil{Name: name, Dims: dims, Dtype: Float64, Grid: DefaultGrid(dims), Steps: DefaultSteps,
		Points: make([]Point, 0, len(offs))}
	for i, o := range offs {
		s.Points = append(s.Points, Point{Off: o, Coef: coefs[i]})
	}
	return s, s.Validate(lim)
}

// DeriveCoefficients gives deterministic coefficients for offsets: positive, summing to 1 (so
// values stay bounded over many steps) and different for mirrored offsets, so that a kernel that
// reads the wrong neighbour gives a different result.
func DeriveCoefficients(offs []Offset) []float64 {
	c := make([]float64, len(offs))
	sum := 0.0
	for i, o := range offs {
		w := 1 / float64(1+abs(o[0])+abs(o[1])+abs(o[2]))
		for axis, bias := range [3]float64{0.1, 0.2, 0.3} {
			if o[axis] > 0 {
				w *= 1 + bias
			}
		}
		c[i] = w
		sum += w
	}
	for i := range c {
		c[i] /= sum
	}
	return c
}

// unprintable reports whether r changes how a terminal shows the text around it rather than
// showing itself: control characters, the bidirectional controls (overrides, embeddings,
// isolates and marks), the line and paragraph separators, and the invisible characters that
// make two names look alike (zero-width space, word joiner, byte-order mark). The other format
// characters stay: scripts need them (the zero-width non-joiner of Persian, the joiner of Indic
// scripts, the soft hyphen).
func unprintable(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control, unicode.Zl, unicode.Zp) ||
		r == '\u200b' || r == '\u2060' || r == '\ufeff'
}

// Validate checks the stencil against the format's rules; the error is a *FieldError.
func (s *Stencil) Validate(lim Limits) error {
	if lim.MaxOrder < 0 || lim.MaxOrder > MaxMaxOrder {
		return fmt.Errorf("maximum order %d is not supported: choose 1 to %d", lim.MaxOrder, MaxMaxOrder)
	}
	if len(s.Name) > 128 {
		return fieldErr("name", "is %d bytes long; keep it under 128", len(s.Name))
	}
	// Names are printed in tables and terminals: a control character could rewrite them, a
	// bidirectional override (a format character) show them reordered, and text that is not
	// UTF-8 garble them. Refused here, where every stencil passes, rather than at each printer.
	if !utf8.ValidString(s.Name) {
		return fieldErr("name", "is not valid UTF-8; use printable text")
	}
	if i := strings.IndexFunc(s.Name, unprintable); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s.Name[i:])
		return fieldErr("name", "holds %U at byte %d, a control, bidirectional or invisible character (such as a right-to-left override); use printable text", r, i)
	}
	if s.Dims != 2 && s.Dims != 3 {
		return fieldErr("dims", "is %d; a stencil has 2 or 3 dimensions", s.Dims)
	}
	if s.Dtype != Float64 && s.Dtype != Float32 {
		return fieldErr("dtype", "is %q; use \"float64\" or \"float32\"", s.Dtype)
	}
	if s.Steps < 1 || s.Steps > MaxSteps {
		return fieldErr("steps", "is %d; use 1 to %d time steps", s.Steps, MaxSteps)
	}
	if len(s.Points) == 0 {
		return fieldErr("offsets", "is empty; list the accessed offsets, the centre included")
	}
	order := s.Order()
	if order > lim.maxOrder() {
		return &FieldError{Field: "offsets", Err: ErrOrderLimit,
			Problem: fmt.Sprintf("reach order %d, beyond the maximum %d; use a smaller stencil or raise the maximum order (up to %d)", order, lim.maxOrder(), MaxMaxOrder)}
	}
	seen := make(map[Offset]int, len(s.Points))
	centre := false
	for i, p := range s.Points {
		for axis, v := range p.Off {
			if v < -MaxMaxOrder || v > MaxMaxOrder { // Order misreads math.MinInt, so check here
				return fieldErr(fmt.Sprintf("offsets[%d]", i), "coordinate %d is %d, beyond the largest supported order %d", axis, v, MaxMaxOrder)
			}
		}
		if s.Dims == 2 && p.Off[2] != 0 {
			return fieldErr(fmt.Sprintf("offsets[%d]", i), "has a z component in a 2-D stencil")
		}
		if j, dup := seen[p.Off]; dup {
			return fieldErr(fmt.Sprintf("offsets[%d]", i), "%s repeats offsets[%d]; list each offset once", formatOffset(p.Off, s.Dims), j)
		}
		seen[p.Off] = i
		if p.Off == (Offset{}) {
			centre = true
		}
		if math.IsNaN(p.Coef) || math.IsInf(p.Coef, 0) {
			return fieldErr(fmt.Sprintf("coefficients[%d]", i), "is not a finite number")
		}
	}
	if !centre {
		return fieldErr("offsets", "lack the centre %s; add it (with coefficient 0 if it is not used)", formatOffset(Offset{}, s.Dims))
	}
	// One step multiplies the largest value by up to the sum of |coefficients|: where that sum
	// overflows the element type, even a grid of ones overflows and no result can be checked.
	largest, fix := math.MaxFloat64, "scale them down"
	if s.Dtype == Float32 {
		largest, fix = math.MaxFloat32, "scale them down or use dtype float64"
	}
	sum := 0.0
	for _, p := range s.Points {
		sum += math.Abs(p.Coef)
	}
	if sum > largest {
		return fieldErr("coefficients", "have absolute values summing to %g, more than the largest %s (%g), so results overflow; %s", sum, s.Dtype, largest, fix)
	}
	var total int64 = 1
	for axis := 0; axis < s.Dims; axis++ {
		n := s.Grid[axis]
		field := fmt.Sprintf("grid[%d]", axis)
		if n < 2*order+1 || n > MaxExtent {
			return fieldErr(field, "is %d; an extent must be between %d (twice the order plus one) and %d", n, 2*order+1, MaxExtent)
		}
		total *= int64(n)
	}
	if s.Dims == 2 && s.Grid[2] != 1 {
		return fieldErr("grid", "has a z extent in a 2-D stencil")
	}
	if total > MaxGridPoints {
		return fieldErr("grid", "has %d points, more than the %d a GPU buffer can hold", total, int64(MaxGridPoints))
	}
	return nil
}

func formatOffset(o Offset, dims int) string {
	b, _ := json.Marshal(o[:dims])
	return string(b)
}

// fileV1 is the JSON form of a stencil file.
type fileV1 struct {
	Format       string      `json:"format"`
	Name         string      `json:"name,omitempty"`
	Dims         *int        `json:"dims"`            // nil: missing
	Dtype        *Dtype      `json:"dtype,omitempty"` // nil: the default
	Grid         []int       `json:"grid,omitempty"`
	Steps        *int        `json:"steps,omitempty"` // nil: the default; 0 is an error
	Offsets      [][]int     `json:"offsets"`
	Coefficients []jsonFloat `json:"coefficients,omitempty"`
}

// jsonFloat keeps coefficients exact when written and rejects non-numbers when read.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(f), 'g', -1, 64), nil
}

// ParseStencil reads a stencil file, fills the defaults and validates it. Errors name the field.
// The file must be UTF-8, as JSON is (another encoding, UTF-16 included, is refused before
// decoding); a UTF-8 byte-order mark (as some Windows editors write) is accepted.
func ParseStencil(data []byte, lim Limits) (*Stencil, error) {
	if len(data) > MaxFileBytes {
		return nil, errTooLarge
	}
	if err := checkUTF8(data); err != nil {
		return nil, err
	}
	if rest, ok := bytes.CutPrefix(data, []byte(jsonerr.BOM)); ok {
		// Spaces in its place keep the byte offsets of errors those of the file.
		data = append([]byte("   "), rest...)
	}
	if err := checkFields(data); err != nil {
		return nil, err
	}
	var f fileV1
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, jsonProblem(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: extra data after the stencil object")
	}
	if f.Format != "" && f.Format != FormatV1 {
		return nil, fieldErr("format", "is %q; this version of smart reads %q", f.Format, FormatV1)
	}
	if f.Dims == nil {
		return nil, fieldErr("dims", "is missing; give 2 or 3, the stencil's dimensions")
	}
	dims := *f.Dims
	if dims != 2 && dims != 3 {
		return nil, fieldErr("dims", "is %d; a stencil has 2 or 3 dimensions", dims)
	}
	if len(f.Offsets) > MaxPoints {
		return nil, fieldErr("offsets", "lists %d offsets; a stencil has at most %d (every offset of order %d or less in 3-D), each listed once", len(f.Offsets), MaxPoints, MaxMaxOrder)
	}
	s := &Stencil{Name: f.Name, Dims: dims, Dtype: Float64, Grid: DefaultGrid(dims), Steps: DefaultSteps}
	if f.Dtype != nil {
		s.Dtype = *f.Dtype
	}
	if f.Steps != nil {
		s.Steps = *f.Steps
	}
	if f.Grid != nil {
		if len(f.Grid) != dims {
			return nil, fieldErr("grid", "has %d extents; give %d (one per dimension)", len(f.Grid), dims)
		}
		s.Grid = [3]int{1, 1, 1}
		copy(s.Grid[:], f.Grid)
	}
	offs := make([]Offset, len(f.Offsets))
	for i, o := range f.Offsets {
		if len(o) != dims {
			return nil, fieldErr(fmt.Sprintf("offsets[%d]", i), "has %d coordinates; a %d-D offset has %d", len(o), dims, dims)
		}
		for axis, v := range o {
			if v < -MaxMaxOrder || v > MaxMaxOrder { // not abs: abs(math.MinInt) < 0
				return nil, fieldErr(fmt.Sprintf("offsets[%d]", i), "coordinate %d is %d, beyond the largest supported order %d", axis, v, MaxMaxOrder)
			}
		}
		copy(offs[i][:], o)
	}
	coefs := DeriveCoefficients(offs)
	if f.Coefficients != nil {
		if len(f.Coefficients) != len(offs) {
			return nil, fieldErr("coefficients", "has %s for %d offsets; give one per offset or leave it out", english.Plural(len(f.Coefficients), "value"), len(offs))
		}
		for i, c := range f.Coefficients {
			coefs[i] = float64(c)
		}
	}
	for i, o := range offs {
		s.Points = append(s.Points, Point{Off: o, Coef: coefs[i]})
	}
	if err := s.Validate(lim); err != nil {
		return nil, err
	}
	return s, nil
}

// errTooLarge is the error of a file over MaxFileBytes.
var errTooLarge = fmt.Errorf("the file is over %d bytes (1 MiB), more than a stencil file needs (at most %d offsets, of order %d or less): it is not a stencil file", MaxFileBytes, MaxPoints, MaxMaxOrder)

// ReadStencil reads a stencil file from r with ParseStencil, reading no more than a stencil file
// can hold, so that a huge file (or an endless stream) costs nothing before its error.
func ReadStencil(r io.Reader, lim Limits) (*Stencil, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	return ParseStencil(data, lim)
}

// checkUTF8 refuses a file that is not UTF-8, as JSON is, before decoding it: encoding/json
// turns each invalid byte of a string into U+FFFD without a word (a name would read "heat\ufffd"
// where the file holds another encoding's "heat\xff"), and calls the byte-order mark of a
// UTF-16 file an invalid character 'ÿ'.
func checkUTF8(data []byte) error {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return fmt.Errorf("the file is UTF-16 (it starts with the byte-order mark % X); save it as UTF-8", data[:2])
	}
	if utf8.Valid(data) {
		return nil
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			// Counted from 1, as the offsets of encoding/json's syntax errors are.
			return fmt.Errorf("the file is not UTF-8: byte %d is 0x%02X, which UTF-8 text cannot hold there; save the file as UTF-8", i+1, data[i])
		}
		i += size
	}
	return nil
}

// checkFields catches what decoding into a struct lets through unseen: a file that holds null
// (it decodes to no fields at all), a field given twice (the last would win without a word) and
// a field that is null (it would read as missing). Other problems are left to the decoding,
// which names them.
func checkFields(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	if tok == nil {
		return errors.New("the file holds null, not a stencil object; a stencil file is a JSON object such as {\"dims\": 2, \"offsets\": [[0, 0]]}")
	}
	if tok != json.Delim('{') {
		return nil
	}
	seen := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		// encoding/json matches field names without regard to case, so "Dims" repeats "dims".
		if first, dup := seen[strings.ToLower(key)]; dup {
			if first == key {
				return fieldErr(key, "is given twice; give each field once")
			}
			return fieldErr(key, "repeats field %q (names are matched without regard to case); give each field once", first)
		}
		seen[strings.ToLower(key)] = key
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if string(v) == "null" {
			return fieldErr(key, "is null; give a value, or leave the field out for its default")
		}
	}
	return nil
}

// jsonProblem turns encoding/json errors into messages that say where the problem is.
func jsonProblem(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at byte %d: %w", syn.Offset, err)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("invalid stencil file: it holds a JSON %s; a stencil file is a JSON object", typ.Value)
	case errors.As(err, &typ):
		return fieldErr(typ.Field, "has a JSON %s at byte %d where %s is expected", typ.Value, typ.Offset, jsonKind(typ.Type))
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: the file is empty or cut short")
	}
	if name, ok := jsonerr.UnknownField(err); ok {
		return fieldErr(name, "is not a field of a stencil file; the fields are format, name, dims, dtype, grid, steps, offsets and coefficients")
	}
	return fmt.Errorf("invalid stencil file: %w", err)
}

// jsonKind names what a Go type holds, for errors read by people who write JSON.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a finite number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// MarshalJSON writes the stencil in the current file format with its coefficients.
func (s *Stencil) MarshalJSON() ([]byte, error) {
	f := fileV1{Format: FormatV1, Name: s.Name, Dims: &s.Dims, Dtype: &s.Dtype, Grid: s.Grid[:s.Dims], Steps: &s.Steps}
	for _, p := range s.Points {
		f.Offsets = append(f.Offsets, p.Off[:s.Dims])
		f.Coefficients = append(f.Coefficients, jsonFloat(p.Coef))
	}
	return json.Marshal(f)
}

// ID identifies the stencil by content (pattern, coefficients, type, grid), not by name, so the
// same stencil measured twice gets the same ID. It is 16 hex digits.
func (s *Stencil) ID() string {
	pts := append([]Point(nil), s.Points...)
	sort.Slice(pts, func(i, j int) bool { return lessOffset(pts[i].Off, pts[j].Off) })
	h := sha256.New()
	fmt.Fprintf(h, "%d|%s|%v|", s.Dims, s.Dtype, s.Grid)
	for _, p := range pts {
		fmt.Fprintf(h, "%v:%x;", p.Off, math.Float64bits(p.Coef))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func lessOffset(a, b Offset) bool {
	for axis := 2; axis >= 0; axis-- {
		if a[axis] != b[axis] {
			return a[axis] < b[axis]
		}
	}
	return false
}

// SortedOffsets returns the offsets ordered by z, then y, then x: the memory order of the grid.
func SortedOffsets(offs []Offset) []Offset {
	out := append([]Offset(nil), offs...)
	sort.Slice(out, func(i, j int) bool { return lessOffset(out[i], out[j]) })
	return out
}
