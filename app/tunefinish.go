package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/tuner"
)

// Finish says what a search that returned res and err came to, and keeps what it found: report
// gets its report (unless the search failed before finding anything worth one), then the trace
// is written to Tune.Trace and the best setting's kernel to Tune.Emit (where set), so that a file
// that cannot be written does not take the result with it. Its error is the search's, one for
// a search that ended without a setting that runs (a caller must not take the empty result for
// a tuned kernel; a Time SettingError where the time limit ran out first), or one saying that
// the search was interrupted, its best so far reported.
func (tg *Tuning) Finish(res tuner.Result, err error, report func(TuneReport) error) error {
	trace, kernel := tg.tune.Trace, tg.tune.Emit
	if err != nil && !(errors.Is(err, context.Canceled) && res.Evaluations > 0) {
		if tg.kt != nil && tg.kt.Incomplete != "" && errors.Is(err, dataset.ErrNotMeasured) {
			return fmt.Errorf("after %d evaluations: %w: %s", res.Evaluations, err, tg.kt.Incomplete)
		}
		return fmt.Errorf("after %d evaluations: %w", res.Evaluations, err)
	}
	if err := report(tg.Report(res)); err != nil {
		return err
	}
	if trace != "" {
		if err := atomicfile.Write(trace, TraceCSV(tg.Problem, res, tg.params)); err != nil {
			return err
		}
	}
	if res.Best.Setting == nil {
		if err != nil {
			return fmt.Errorf("interrupted after %d evaluations, none of which ran successfully: %w", res.Evaluations, err)
		}
		return noneRan(res, tg.tune.Budget.Time)
	}
	if kernel != "" {
		if err := EmitBest(kernel, tg.Problem, res); err != nil {
			return err
		}
	}
	if err != nil {
		return fmt.Errorf("interrupted after %d evaluations; the best so far is reported: %w", res.Evaluations, err)
	}
	return nil
}

// noneRan is the error of a search that ended without a successful evaluation: why none
// finished, or what the first failure was.
func noneRan(res tuner.Result, timeLimit time.Duration) error {
	if res.Evaluations == 0 {
		if res.Stop == tuner.StopTime {
			return &SettingError{Field: "Time", Value: timeLimit.String(),
				Err: fmt.Errorf("ran out before %s finished any evaluation; give it more time", res.Method)}
		}
		return fmt.Errorf("%s: the search ended (%s) before any evaluation finished", res.Method, res.Stop)
	}
	f := res.Failures[0].Measurement
	why := string(f.Status)
	if f.Error != "" {
		why += ": " + f.Error
	}
	return fmt.Errorf("%s: no setting ran successfully in %d evaluations (stopped: %s); the first failure: %s", res.Method, res.Evaluations, res.Stop, why)
}
