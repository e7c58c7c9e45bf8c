package dataset

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"smart"
)

// Leading and trailing columns of rows.csv; the parameter columns (Meta.Params) sit between them.
var (
	headColumns = []string{"stencil_id", "kernel", "gpu", "device", "oc"}
	tailColumns = []string{"status", "error", "time_ms", "min_ms", "max_ms", "mean_ms", "std_ms", "reps",
		"source", "sm_clock_mhz", "mem_clock_mhz", "power_w", "temp_c", "runs", "cut", "regs", "local_bytes"}
)

// tailOf returns the tail columns of a format: each format adds columns at the end.
func tailOf(format string) []string {
	switch format {
	case FormatV1:
		return tailColumns[:colRuns]
	case FormatV2:
		return tailColumns[:colRegs]
	}
	return tailColumns
}

// columnsOf returns the header of rows.csv of a data set of the given format.
func columnsOf(format string, params []string) []string {
	return slices.Concat(headColumns, params, tailOf(format))
}

// StencilParams are the parameter columns of a stencil data set: every stencil parameter in
// smart's print order, so that any OC's setting fits (an OC's absent parameters are empty).
func StencilParams() []string {
	var names []string
	for _, oc := range smart.Combinations() {
		for _, n := range smart.ParamNames(3, oc) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	// ParamNames lists each OC's parameters in print order; Setting.String sorts by it too.
	keys := make(smart.Setting, len(names))
	for _, n := range names {
		keys[n] = 0
	}
	var ordered []string
	for _, item := range strings.Split(keys.String(), ",") {
		name, _, _ := strings.Cut(item, "=")
		ordered = append(ordered, name)
	}
	return ordered
}

// columns maps the header to field positions.
type columns struct {
	format string
	params []string
	index  map[string]int // parameter name -> column
	n      int
	tails  int // how many of tailColumns the format has
}

func newColumns(format string, params []string) (columns, error) {
	tails := len(tailOf(format))
	c := columns{format: format, params: params, index: make(map[string]int, len(params)), n: len(headColumns) + len(params) + tails,
		tails: tails}
	for i, p := range params {
		switch {
		case p == "" || strings.IndexFunc(p, func(r rune) bool {
			return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) >= 0:
			return c, fmt.Errorf("parameter name %q may hold only letters, digits and '_'", p)
		case slices.Contains(headColumns, p) || slices.Contains(tailColumns, p):
			return c, fmt.Errorf("parameter name %q is also a fixed column of %s", p, RowsFile)
		}
		if _, dup := c.index[p]; dup {
			return c, fmt.Errorf("parameter %q is listed twice", p)
		}
		c.index[p] = len(headColumns) + i
	}
	return c, nil
}

func (c columns) tail(i int) int { return len(headColumns) + len(c.params) + i }

// has reports whether the format has tail column i.
func (c columns) has(i int) bool { return i < c.tails }

// Positions of the tail columns, relative to the first of them.
const (
	colStatus = iota
	colError
	colTime
	colMin
	colMax
	colMean
	colStd
	colReps
	colSource
	colSMClock
	colMemClock
	colPower
	colTemp
	colRuns
	colCut
	colRegs
	colLocalBytes
)

// encode writes m as a record. Times use the shortest decimal that reads back to the same float64,
// so a row round-trips exactly; a failed variant leaves its times empty (NaN in pandas).
func (c columns) encode(m smart.Measurement) ([]string, error) {
	rec := make([]string, c.n)
	rec[0], rec[1], rec[2], rec[3] = m.StencilID, m.Kernel, m.GPU, m.Device
	if m.Kernel == "" || m.OC != 0 {
		rec[4] = m.OC.String()
	}
	for k, v := range m.Setting {
		i, ok := c.index[k]
		if !ok {
			return nil, fmt.Errorf("setting %s has parameter %s, which is not a column of this data set (columns: %s)", m.Setting, k, strings.Join(c.params, ","))
		}
		rec[i] = strconv.Itoa(v)
	}
	rec[c.tail(colStatus)] = string(m.Status)
	rec[c.tail(colError)] = oneLine(m.Error)
	// Statistics a source does not give (the analytic model has no repetitions) stay empty
	// rather than read as 0 ms; zero and empty read back alike, so rows still round-trip.
	if m.OK() || m.TimeMs != 0 {
		rec[c.tail(colTime)] = formatFloat(m.TimeMs)
	}
	for i, v := range []float64{m.MinMs, m.MaxMs, m.MeanMs, m.StdMs} {
		if v != 0 || m.Reps > 0 {
			rec[c.tail(colMin+i)] = formatFloat(v)
		}
	}
	if m.Reps != 0 {
		rec[c.tail(colReps)] = strconv.Itoa(m.Reps)
	}
	rec[c.tail(colSource)] = string(m.Source)
	if r := m.Readings; r != nil {
		rec[c.tail(colSMClock)] = strconv.Itoa(r.SMClockMHz)
		rec[c.tail(colMemClock)] = strconv.Itoa(r.MemClockMHz)
		rec[c.tail(colPower)] = formatFloat(r.PowerW)
		rec[c.tail(colTemp)] = strconv.Itoa(r.TempC)
	}
	switch {
	case c.has(colCut):
		if m.Runs != 0 {
			rec[c.tail(colRuns)] = strconv.Itoa(m.Runs)
		}
		rec[c.tail(colCut)] = string(m.Cut)
	case m.Cut != smart.CutNone:
		return nil, fmt.Errorf("%s: the row is cut (%s) and a data set of format %s has no column to say so; measure into a new data set, or without cutting", describe(m), m.Cut, c.format)
	}
	// A data set of an older format keeps its header: the compiler's facts are dropped, the
	// time stands without them.
	if k := m.Compiled; k != nil && c.has(colLocalBytes) {
		rec[c.tail(colRegs)] = strconv.Itoa(k.RegsPerThread)
		rec[c.tail(colLocalBytes)] = strconv.Itoa(k.LocalBytesPerThread)
	}
	return rec, nil
}

// oneLine keeps every row on one line of the file (compiler messages span many), so that a torn
// write is always a torn last line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// fieldError is a bad value in rows.csv: it names the file, line and column.
type fieldError struct {
	path   string
	line   int
	column string
	msg    string
}

func (e *fieldError) Error() string {
	return fmt.Sprintf("%s:%d: column %s: %s", e.path, e.line, e.column, e.msg)
}

// decode reads a record written by encode. It does not check the status against the times
// beyond what encode guarantees, so hand-edited files stay readable.
func (c columns) decode(rec []string, path string, line int) (smart.Measurement, error) {
	bad := func(col, format string, args ...any) error {
		return &fieldError{path: path, line: line, column: col, msg: fmt.Sprintf(format, args...)}
	}
	if len(rec) != c.n {
		return smart.Measurement{}, fmt.Errorf("%s:%d: the row has %d fields; the header has %d", path, line, len(rec), c.n)
	}
	m := smart.Measurement{StencilID: rec[0], Kernel: rec[1], GPU: rec[2], Device: rec[3], Setting: smart.Setting{}}
	if m.StencilID == "" && m.Kernel == "" {
		return m, bad("stencil_id", "is empty and so is kernel; a row names its stencil or kernel")
	}
	if rec[4] == "" && m.Kernel == "" {
		// ParseCombination reads "" as BASE; a stencil row always names its OC, BASE included.
		return m, bad("oc", "is empty in a stencil row; name the optimization combination (BASE for none)")
	}
	if rec[4] != "" {
		oc, err := smart.ParseCombination(rec[4])
		if err != nil {
			return m, bad("oc", "%v", err)
		}
		m.OC = oc
	}
	for _, p := range c.params {
		s := rec[c.index[p]]
		if s == "" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return m, bad(p, "%q is not an integer", s)
		}
		m.Setting[p] = v
	}
	m.Status = smart.Status(rec[c.tail(colStatus)])
	switch m.Status {
	case smart.StatusOK, smart.StatusCompileError, smart.StatusLaunchError, smart.StatusWrongResult, smart.StatusTimeout, smart.StatusInvalid:
	default:
		return m, bad("status", "%q is not a status; use ok, compile_error, launch_error, wrong_result, timeout or invalid", m.Status)
	}
	m.Error = rec[c.tail(colError)]
	for i, dst := range []*float64{&m.TimeMs, &m.MinMs, &m.MaxMs, &m.MeanMs, &m.StdMs} {
		s := rec[c.tail(colTime+i)]
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || strings.ContainsRune(s, '_') { // 1_000 is Go's, no CSV reader's
			return m, bad(tailColumns[colTime+i], "%q is not a non-negative number of milliseconds", s)
		}
		*dst = v
	}
	if m.OK() && !(m.TimeMs >= MinTimeMs) {
		return m, bad("time_ms", "is %q in an ok row; an ok row has a time of at least %g ms", rec[c.tail(colTime)], MinTimeMs)
	}
	if s := rec[c.tail(colReps)]; s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return m, bad("reps", "%q is not a count", s)
		}
		m.Reps = v
	}
	m.Source = smart.Source(rec[c.tail(colSource)])
	switch m.Source {
	case smart.Measured, smart.Simulated, smart.Imported, smart.Predicted:
	default:
		return m, bad("source", "%q is not a source; use measured, simulated, imported or predicted", m.Source)
	}
	if c.has(colCut) {
		if s := rec[c.tail(colRuns)]; s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 {
				return m, bad("runs", "%q is not a count", s)
			}
			m.Runs = v
		}
		m.Cut = smart.Cut(rec[c.tail(colCut)])
		switch m.Cut {
		case smart.CutNone, smart.CutSlow, smart.CutStopped:
		default:
			return m, bad("cut", "%q is not a cut; leave it empty, or use slow or stopped", m.Cut)
		}
	}
	if slices.ContainsFunc(rec[c.tail(colSMClock):c.tail(colTemp)+1], func(s string) bool { return s != "" }) {
		r := &smart.Readings{}
		for i, dst := range []*int{&r.SMClockMHz, &r.MemClockMHz, nil, &r.TempC} {
			col := colSMClock + i
			s := rec[c.tail(col)]
			if dst == nil {
				v, err := strconv.ParseFloat(s, 64)
				if s != "" && (err != nil || math.IsNaN(v) || math.IsInf(v, 0)) {
					return m, bad(tailColumns[col], "%q is not a number of watts", s)
				}
				r.PowerW = v
				continue
			}
			if s == "" {
				continue
			}
			v, err := strconv.Atoi(s)
			if err != nil {
				return m, bad(tailColumns[col], "%q is not an integer", s)
			}
			*dst = v
		}
		m.Readings = r
	}
	if c.has(colLocalBytes) {
		regs, local := rec[c.tail(colRegs)], rec[c.tail(colLocalBytes)]
		if (regs == "") != (local == "") {
			return m, bad("regs", "is %q and local_bytes %q; the compiler's facts are both given or both empty", regs, local)
		}
		if regs != "" {
			k := &smart.Compiled{}
			for i, dst := range []*int{&k.RegsPerThread, &k.LocalBytesPerThread} {
				s := rec[c.tail(colRegs+i)]
				v, err := strconv.Atoi(s)
				if err != nil || v < 0 {
					return m, bad(tailColumns[colRegs+i], "%q is not a count of %s per thread", s, []string{"registers", "bytes"}[i])
				}
				*dst = v
			}
			m.Compiled = k
		}
	}
	return m, nil
}

// MinTimeMs is the least time an ok row may hold: no launch takes under a nanosecond, and a
// time far below it (a denormal) turns every ratio to it infinite.
const MinTimeMs = 1e-6

// Key identifies a variant within a data set: GPU (the device name where the catalogue does not
// know it), stencil or kernel, OC and setting. A run skips the variants whose key is already in
// rows.csv.
func Key(m smart.Measurement) string {
	gpu := m.GPU
	if gpu == "" {
		gpu = "device:" + m.Device
	}
	id := m.StencilID
	if id == "" {
		id = "kernel:" + m.Kernel
	}
	return gpu + "|" + id + "|" + m.OC.String() + "|" + m.Setting.String()
}

// origin is where a row's time comes from: its source and device. Rows of one variant (Key)
// from different origins are different rows: a data set merged or imported with AllowMixed may
// hold a variant measured and simulated, or measured on two devices of one GPU model.
func origin(m smart.Measurement) string { return string(m.Source) + "|" + m.Device }
