package campaign

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"smart"
	"smart/dataset"
	"smart/internal/csvfile"
)

// CallsFile logs every call of a campaign on its data set, one CSV line per call, appended (see
// Call for the columns): the throughput of each lease can be read from the data.
const CallsFile = "calls.csv"

var callsHeader = []string{"start", "end", "gpu", "device", "uuid", "driver", "source", "tool", "rows", "ok", "rows_2d", "rows_3d",
	"cut", "stencils_done", "stopped", "compile_s", "gpu_s", "wait_s", "compiles", "starts"}

// Call is what one call of a campaign did: one line of CallsFile.
type Call struct {
	Start        time.Time    `json:"start"`
	End          time.Time    `json:"end"`
	GPU          string       `json:"gpu"`    // catalogue name
	Device       string       `json:"device"` // the device's own name
	UUID         string       `json:"uuid"`
	Driver       string       `json:"driver"`
	Source       smart.Source `json:"source"`
	Tool         string       `json:"tool"` // the smart build
	Rows         int          `json:"rows"` // rows appended
	OK           int          `json:"ok"`   // those of status ok
	Rows2D       int          `json:"rows_2d"`
	Rows3D       int          `json:"rows_3d"`
	Cut          int          `json:"cut"`           // ok rows cut short by the protocol
	StencilsDone int          `json:"stencils_done"` // stencils of the manifest with every variant measured, after the call
	// Stopped says the call ended with variants left: by the time limit, or interrupted (its
	// context cancelled).
	Stopped bool `json:"stopped"`
	// Where the time went, where the evaluator tells (a Timer): compiler runs and their summed
	// wall time, the time spent running variants and waiting for compiles, harness start-ups.
	CompileS float64 `json:"compile_s"`
	GPUS     float64 `json:"gpu_s"`
	WaitS    float64 `json:"wait_s"`
	Compiles int     `json:"compiles"`
	Starts   int     `json:"starts"`
	// Err is what stopped the call early, if anything (not logged).
	Err error `json:"-"`
}

// RowsPerMinute is the call's throughput over its wall time.
func (c Call) RowsPerMinute() float64 {
	if d := c.End.Sub(c.Start).Minutes(); d > 0 {
		return float64(c.Rows) / d
	}
	return 0
}

// Timer is an evaluator that reports where its time went (dataset/cuda.Runner is one).
type Timer interface {
	Times() (compile, gpu, wait time.Duration, compiles, starts int)
}

// ErrTooShort is a call whose StopAfter ran out before it measured a variant: the next call,
// given as long, may stop there again (though builds finished so far are cached).
var ErrTooShort = errors.New("the time ran out before the first variant was measured")

// Run is one call of a campaign: it measures the manifest's variants that the data set in Out
// lacks, in the manifest's order, until they are done or StopAfter has passed.
type Run struct {
	Manifest  *Manifest
	Out       string          // the data set (created on the first call)
	Evaluator smart.Evaluator // the GPU runner, or the analytic model to try a campaign
	GPU       string          // catalogue name, in every row
	Device    dataset.Device
	Source    smart.Source
	Observer  dataset.Observer
	Batch     int           // variants per batch; 0: the evaluator's default
	StopAfter time.Duration // counted from the call's start (Do); 0: no limit
	Progress  func(done, total int)
}

// Meta is the description of the campaign's data set on this device.
func (r *Run) Meta() dataset.Meta {
	ids := make([]string, len(r.Manifest.stencils))
	for i, st := range r.Manifest.stencils {
		ids[i] = st.ID()
	}
	slices.Sort(ids)
	// A campaign outlives a driver: each call logs its card and driver in CallsFile, so the data
	// set names the GPU and not the driver it was started with, which would refuse the next.
	dev := r.Device
	dev.UUID, dev.Driver, dev.CUDA = "", "", ""
	return dataset.Meta{Sources: []smart.Source{r.Source}, Devices: []dataset.Device{dev}, Params: dataset.StencilParams(),
		Plan: &dataset.Plan{Manifest: r.Manifest.Hash(), Stencils: ids}}
}

// Do runs the call and logs it in the data set's CallsFile, also when it stops on an error
// (a lost device, a cancelled context), which the returned Call holds. A data set that does not
// open (one started differently) begins no call: the Call is zero and nothing is logged.
func (r *Run) Do(ctx context.Context) (Call, error) {
	start := time.Now()
	call := Call{Start: start.UTC(), GPU: r.GPU, Device: r.Device.Name, UUID: r.Device.UUID, Driver: r.Device.Driver,
		Source: r.Source, Tool: dataset.ToolVersion()}
	// Another manifest's data set is refused before the data set's own check, which cannot tell
	// another manifest from this one edited.
	if old, err := dataset.ReadMeta(r.Out); err == nil && old.Plan != nil && old.Plan.Manifest != "" {
		if err := r.Manifest.measuredIn(r.Out, old.Plan); err != nil {
			return Call{}, err
		}
	}
	// A damaged log is refused before the call, which would measure for hours and then log into
	// a file status cannot read.
	if _, err := ReadCalls(r.Out); err != nil {
		return Call{}, err
	}
	// A torn last line (a call killed mid-write) is cut off here, and its variant measured again.
	w, _, err := dataset.OpenWriter(r.Out, r.Meta())
	if err != nil {
		return Call{}, err
	}
	defer w.Close()
	items := make([]dataset.Item, len(r.Manifest.items))
	for i, it := range r.Manifest.items {
		items[i] = it.Item
	}
	before := r.measured(w)
	runner := &dataset.Runner{Evaluator: r.Evaluator, GPU: r.GPU, Batch: r.Batch, Observer: r.Observer, Progress: r.Progress}
	if r.StopAfter > 0 {
		// From the call's start: opening the data set and counting what it holds (seconds, for
		// a campaign's tens of thousands of variants) are the call's time too.
		runner.Deadline = start.Add(r.StopAfter)
	}
	sum, runErr := runner.Run(ctx, w, items)
	if runErr == nil && sum.Stopped && sum.Written == 0 {
		runErr = ErrTooShort
	}
	interrupted := ctx.Err() != nil && sum.Skipped+sum.Written < sum.Total
	call.Rows, call.OK, call.Stopped = sum.Written, sum.ByStatus[smart.StatusOK], sum.Stopped || interrupted
	for _, n := range sum.Cut {
		call.Cut += n
	}
	err = r.tally(w, before, &call)
	if t, ok := r.Evaluator.(Timer); ok {
		compile, gpu, wait, compiles, starts := t.Times()
		call.CompileS, call.GPUS, call.WaitS = compile.Seconds(), gpu.Seconds(), wait.Seconds()
		call.Compiles, call.Starts = compiles, starts
	}
	call.End = time.Now().UTC()
	call.Err = errors.Join(runErr, err)
	if err := w.Close(); err != nil {
		call.Err = errors.Join(call.Err, err)
	}
	if err := appendCall(r.Out, call); err != nil {
		call.Err = errors.Join(call.Err, err)
	}
	return call, call.Err
}

// measured counts the variants of each stencil that the data set holds.
func (r *Run) measured(w *dataset.Writer) map[*smart.Stencil]int {
	have := map[*smart.Stencil]int{}
	ids := map[*smart.Stencil]string{} // Stencil.ID hashes the stencil: once each, not once an item
	for _, it := range r.Manifest.items {
		id, ok := ids[it.Stencil]
		if !ok {
			id = it.Stencil.ID()
			ids[it.Stencil] = id
		}
		if w.Has(smart.Measurement{StencilID: id, GPU: r.GPU, OC: it.OC, Setting: it.Setting}) {
			have[it.Stencil]++
		}
	}
	return have
}

// tally stores the stencil file of every stencil the data set has rows of, and fills in the
// call's stencils done and rows by dimensionality (before: the counts before the call).
func (r *Run) tally(w *dataset.Writer, before map[*smart.Stencil]int, call *Call) error {
	after := r.measured(w)
	call.StencilsDone, call.Rows2D, call.Rows3D = 0, 0, 0
	for i, st := range r.Manifest.stencils {
		if after[st] > 0 {
			if err := w.AddStencil(st); err != nil {
				return err
			}
		}
		if after[st] == r.Manifest.Entries[i].Items {
			call.StencilsDone++
		}
		if st.Dims == 2 {
			call.Rows2D += after[st] - before[st]
		} else {
			call.Rows3D += after[st] - before[st]
		}
	}
	return nil
}

// appendCall appends one line to dir's CallsFile, with the header when the file is new.
func appendCall(dir string, c Call) error {
	path := filepath.Join(dir, CallsFile)
	// A call killed while logging leaves a torn last line, which ReadCalls leaves out: cut it,
	// or the line appended now would join it.
	if old, err := os.ReadFile(path); err == nil && len(old) > 0 && old[len(old)-1] != '\n' {
		if err := os.Truncate(path, int64(strings.LastIndexByte(string(old), '\n')+1)); err != nil {
			return fmt.Errorf("logging the call: cutting the torn last line of %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("logging the call: %w", err)
	}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		cw.Write(callsHeader)
	}
	cw.Write([]string{c.Start.Format(callTime), c.End.Format(callTime), c.GPU, c.Device, c.UUID, c.Driver, string(c.Source), c.Tool,
		strconv.Itoa(c.Rows), strconv.Itoa(c.OK), strconv.Itoa(c.Rows2D), strconv.Itoa(c.Rows3D), strconv.Itoa(c.Cut),
		strconv.Itoa(c.StencilsDone), strconv.FormatBool(c.Stopped), secs(c.CompileS), secs(c.GPUS), secs(c.WaitS),
		strconv.Itoa(c.Compiles), strconv.Itoa(c.Starts)})
	cw.Flush()
	_, err = f.WriteString(b.String())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("logging the call in %s: %w", path, err)
	}
	return nil
}

// callTime is how CallsFile writes a call's start and end: to the millisecond, so that a call
// shorter than a second (a simulated one) has a rate; time.RFC3339 reads it, and the older lines
// of whole seconds.
const callTime = "2006-01-02T15:04:05.000Z07:00"

func secs(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// ReadCalls reads the calls logged in a campaign's data set. As with rows.csv, a torn last line
// (a call killed while logging it: each line is one write ending in its newline) is left out, and
// a file without a whole line (killed before its header was out) holds no calls, as a missing one.
func ReadCalls(dir string) ([]Call, error) {
	path := filepath.Join(dir, CallsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	whole := string(b[:strings.LastIndexByte(string(b), '\n')+1])
	if whole == "" {
		return nil, nil
	}
	var calls []Call
	err = csvfile.Read(path, strings.NewReader(whole), callsHeader, func(line int, rec []string) error {
		var err error
		c := Call{GPU: rec[2], Device: rec[3], UUID: rec[4], Driver: rec[5], Source: smart.Source(rec[6]), Tool: rec[7]}
		var errs []error
		for i, t := range []*time.Time{&c.Start, &c.End} {
			if *t, err = time.Parse(time.RFC3339, rec[i]); err != nil {
				errs = append(errs, fmt.Errorf("column %s: %w", callsHeader[i], err))
			}
		}
		for i, n := range []*int{&c.Rows, &c.OK, &c.Rows2D, &c.Rows3D, &c.Cut, &c.StencilsDone} {
			if *n, err = strconv.Atoi(rec[8+i]); err != nil || *n < 0 {
				errs = append(errs, fmt.Errorf("column %s: %q is not a count", callsHeader[8+i], rec[8+i]))
			}
		}
		if c.Stopped, err = strconv.ParseBool(rec[14]); err != nil {
			errs = append(errs, fmt.Errorf("column stopped: %w", err))
		}
		for i, v := range []*float64{&c.CompileS, &c.GPUS, &c.WaitS} {
			if *v, err = strconv.ParseFloat(rec[15+i], 64); err != nil || *v < 0 {
				errs = append(errs, fmt.Errorf("column %s: %q is not a number of seconds", callsHeader[15+i], rec[15+i]))
			}
		}
		for i, n := range []*int{&c.Compiles, &c.Starts} {
			if *n, err = strconv.Atoi(rec[18+i]); err != nil || *n < 0 {
				errs = append(errs, fmt.Errorf("column %s: %q is not a count", callsHeader[18+i], rec[18+i]))
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("%s:%d: %w", path, line, errs[0])
		}
		calls = append(calls, c)
		return nil
	})
	return calls, err
}
