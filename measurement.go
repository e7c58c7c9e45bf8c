package smart

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"

	"smart/internal/stats"
)

// Source says where a number comes from. Every measurement and prediction carries one.
type Source string

// The sources of numbers.
const (
	Measured  Source = "measured"  // timed on a real GPU by smart bench
	Imported  Source = "imported"  // read from another tool's measurements (Kernel Tuner caches)
	Simulated Source = "simulated" // computed by the analytic model
	Predicted Source = "predicted" // estimated by a trained model
)

// Status is the outcome of evaluating one variant.
type Status string

// The outcomes of an evaluation. Anything but StatusOK has no valid time.
const (
	StatusOK           Status = "ok"
	StatusCompileError Status = "compile_error"
	StatusLaunchError  Status = "launch_error"
	StatusWrongResult  Status = "wrong_result"
	StatusTimeout      Status = "timeout"
	StatusInvalid      Status = "invalid" // the setting breaks a constraint or a resource limit
)

// Statuses lists every status, ok first: the order of reports that count rows by status.
func Statuses() []Status {
	return []Status{StatusOK, StatusCompileError, StatusLaunchError, StatusWrongResult, StatusTimeout, StatusInvalid}
}

// Cut says how a measuring protocol cut a variant's runs short: a variant far slower than the
// fastest of its stencil (and of its OC) so far needs no exact time, only one that says "slow".
type Cut string

// The cuts of smart's GPU protocol (dataset/cuda).
const (
	CutNone    Cut = ""        // measured in full: checked, then timed Reps times
	CutSlow    Cut = "slow"    // checked, and timed by its checked run alone
	CutStopped Cut = "stopped" // timed over the first launch of its checked run, and not checked
)

// Measurement is the time of one variant (stencil or kernel, OC, setting) on one GPU, with its
// provenance. Times are per time step, in milliseconds.
type Measurement struct {
	StencilID string      `json:"stencil_id,omitempty"` // Stencil.ID, empty for foreign kernels
	Kernel    string      `json:"kernel,omitempty"`     // foreign kernel name (Kernel Tuner), empty for stencils
	GPU       string      `json:"gpu"`                  // catalogue name
	OC        Combination `json:"oc"`
	Setting   Setting     `json:"setting"`
	Status    Status      `json:"status"`
	Error     string      `json:"error,omitempty"` // why a variant failed

	TimeMs float64 `json:"time_ms"` // median over repetitions
	MinMs  float64 `json:"min_ms,omitempty"`
	MaxMs  float64 `json:"max_ms,omitempty"`
	MeanMs float64 `json:"mean_ms,omitempty"`
	StdMs  float64 `json:"std_ms,omitempty"`
	Reps   int     `json:"reps,omitempty"` // timed samples behind the statistics
	Runs   int     `json:"runs,omitempty"` // timed runs behind them (a sample may average several)
	Cut    Cut     `json:"cut,omitempty"`  // how the measuring protocol cut the runs short, if it did

	Source Source `json:"source"`
	Device string `json:"device,omitempty"` // the device as it named itself (NVML or the cache file)

	Readings *Readings `json:"readings,omitempty"` // NVML readings where measured, nil otherwise
	Compiled *Compiled `json:"compiled,omitempty"` // what the compiler made of the kernels, nil where unknown
}

// Compiled is what the compiler made of a variant's kernels, as the CUDA driver reports it for
// the loaded code (cuFuncGetAttribute): the analytic model only estimates registers (Usage) and
// cannot see spills. For a variant of several kernels, the largest of each. Only a measurement
// on a GPU knows it: simulated, imported and emulated rows, and variants that did not compile,
// have none.
type Compiled struct {
	RegsPerThread int `json:"regs_per_thread"` // 32-bit registers per thread
	// LocalBytesPerThread is the local memory per thread in bytes: spilled registers and arrays
	// the compiler could not keep in registers. 0 is a known "none".
	LocalBytesPerThread int `json:"local_bytes_per_thread"`
}

// Readings are a GPU's clocks, power draw and temperature read through NVML around a measurement,
// so that a slow variant can be told apart from a throttled GPU.
type Readings struct {
	SMClockMHz  int     `json:"sm_clock_mhz"`
	MemClockMHz int     `json:"mem_clock_mhz"`
	PowerW      float64 `json:"power_w"`
	TempC       int     `json:"temp_c"`
}

// OK reports whether the measurement holds a valid time.
func (m Measurement) OK() bool { return m.Status == StatusOK }

// SetRuns sets the median, minimum, maximum, mean and sample standard deviation (n-1; left as it
// is for a single time) of times, one variant's per-step times in ms, and their count in Reps.
// times must not be empty, and stays as it is; the mean and the spread sum the times in the
// order given.
func (m *Measurement) SetRuns(times []float64) {
	s := slices.Clone(times)
	sort.Float64s(s)
	n := len(s)
	m.TimeMs, m.MinMs, m.MaxMs, m.Reps = stats.Median(s), s[0], s[n-1], n
	sum := 0.0
	for _, t := range times {
		sum += t
	}
	m.MeanMs = sum / float64(n)
	if n > 1 {
		sq := 0.0
		for _, t := range times {
			sq += (t - m.MeanMs) * (t - m.MeanMs)
		}
		m.StdMs = math.Sqrt(sq / float64(n-1))
	}
}

// GPUName names the GPU the measurement was taken on: its catalogue name, else the device as it
// named itself.
func (m Measurement) GPUName() string { return cmp.Or(m.GPU, m.Device) }

// Query asks for the time of one variant. Stencil is nil for a foreign kernel (a replayed Kernel
// Tuner cache), whose parameters are all in Setting.
type Query struct {
	Stencil *Stencil
	OC      Combination
	Setting Setting
	GPU     string // catalogue name; an Evaluator bound to one device may ignore it
}

// Evaluator answers how long a variant takes: on a GPU (measured), from a data set (replayed), from
// a trained model (predicted) or from the analytic model (simulated). A variant that fails is a
// Measurement with a failing Status; the error is for failures of the evaluator itself
// (a cancelled context, a lost device, an unreadable file).
type Evaluator interface {
	Evaluate(ctx context.Context, q Query) (Measurement, error)
}

// BatchEvaluator is an Evaluator that is cheaper per variant when given many at once (a GPU
// backend compiles many variants into one translation unit). Results are in query order. A batch
// cut short (a cancelled context, a deadline) may return its results so far with the error:
// len(qs) measurements, of which those with a Status are finished and the rest not; callers
// keep the finished ones, so an interrupted batch loses only the variants in flight.
type BatchEvaluator interface {
	Evaluator
	EvaluateBatch(ctx context.Context, qs []Query) ([]Measurement, error)
}
