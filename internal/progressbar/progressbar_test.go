package progressbar

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestProgressLine checks the estimate of the time left: the work left over the rate so far,
// and no overflowed duration for a total no run will reach (a --budget of 2^63-1); and that the
// rate waits, like the time left, for enough items (the first of 50 boosting rounds, drawn 15 µs
// after the bar began, showed 66666.7/s).
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		total, from, done int
		elapsed           time.Duration
		want              string
	}{
		{100, 0, 25, 10 * time.Second, "ETA 30s"},
		{100, 0, 100, 10 * time.Second, "ETA done in 10s"},
		{100, 0, 0, time.Second, "ETA ?"},
		{math.MaxInt, 0, 20, time.Second, "ETA > 11 days"},
		{440, 0, 19, time.Second, " ?/s ETA ?"}, // too few to tell
		{50, 0, 1, 15 * time.Microsecond, " ?/s ETA ?"},
		{50, 0, 3, time.Second, " 3.0/s ETA 16s"},                // 5% of 50 is enough
		{2, 0, 2, time.Millisecond, " 2000.0/s ETA done in 1ms"}, // done: the whole job's rate
		{100, 50, 50, time.Second, " ?/s ETA ?"},                 // resumed, nothing new yet
		// Resumed at 50: 25 items in 10 s, 2.5 a second, 25 left.
		{100, 50, 75, 10 * time.Second, " 2.5/s ETA 10s"},
		{1000, 900, 903, time.Second, "ETA ?"}, // 3 of this run's 100: too few
	} {
		p := &Bar{Label: "x", Total: tc.total, From: tc.from}
		if got := p.line(tc.done, tc.elapsed, barWidth); !strings.HasSuffix(got, tc.want) {
			t.Errorf("%d (from %d) of %d after %s: %q, want it to end in %q", tc.done, tc.from, tc.total, tc.elapsed, got, tc.want)
		}
	}
}

// campaignCosts are the seconds each stencil of a small campaign plan took to draw (2-D and 3-D
// alternating, orders 1 to 4, a large copy now and then; measured on 2 cores), repeated to make
// a job of 440 items: cheap and dear items mixed, as in the drawing that prompted the estimator.
var campaignCosts = []float64{0.32, 0.14, 2.94, 4.17, 0.29, 2.70, 0.39, 2.45, 0.46, 1.39, 0.19, 1.51, 0.24,
	1.14, 0.19, 0.85, 0.23, 0.96, 0.20, 2.05, 0.25, 1.23, 0.21, 1.00, 0.16, 0.85}

// estimates replays a job whose items take costs[i] seconds, asking for the time left every
// tick as Update would, and returns each estimate of the whole job's time (elapsed plus left)
// with the time it was made and whether an item finished since the previous tick.
func estimates(costs []float64, tick float64, estimate func(total, done int, doneAt, now float64) (float64, bool)) (at, whole []float64, finished []bool) {
	ends := make([]float64, len(costs))
	sum := 0.0
	for i, c := range costs {
		sum += c
		ends[i] = sum
	}
	done, doneAt := 0, 0.0
	for now := tick; now < sum; now += tick {
		prev := done
		for done < len(costs) && ends[done] <= now {
			doneAt = ends[done]
			done++
		}
		if left, ok := estimate(len(costs), done, doneAt, now); ok {
			at, whole, finished = append(at, now), append(whole, now+left), append(finished, done != prev)
		}
	}
	return at, whole, finished
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// timeLeftS is timeLeft in seconds.
func timeLeftS(total, done int, doneAt, now float64) (float64, bool) {
	return timeLeft(total, done, secs(doneAt), secs(now))
}

// TestTimeLeft: items of equal cost are estimated exactly at every instant; items of mixed cost
// give an estimate of the whole job that stays within 15% of the truth and swings less than a
// fifth as far as the count over the elapsed time (the estimate before); and the estimate never
// climbs while no item finishes.
func TestTimeLeft(t *testing.T) {
	equal := make([]float64, 50)
	for i := range equal {
		equal[i] = 2
	}
	at, whole, _ := estimates(equal, 0.1, timeLeftS)
	for i := range at {
		if math.Abs(whole[i]-100) > 1e-6 {
			t.Fatalf("equal items, at %.1f s: the job estimated at %.3f s, want 100", at[i], whole[i])
		}
	}

	var costs []float64
	for len(costs) < 440 {
		costs = append(costs, campaignCosts...)
	}
	costs = costs[:440]
	truth := 0.0
	for _, c := range costs {
		truth += c
	}
	// The estimate before: done items over the elapsed time, at this instant.
	before := func(total, done int, _, now float64) (float64, bool) {
		if done == 0 {
			return 0, false
		}
		return float64(total-done) * now / float64(done), true
	}
	spread := func(whole []float64) (lo, hi float64) {
		return slices.Min(whole), slices.Max(whole)
	}
	at, whole, finished := estimates(costs, 0.1, timeLeftS)
	lo, hi := spread(whole)
	if lo < 0.85*truth || hi > 1.15*truth {
		t.Errorf("mixed items: the job of %.0f s estimated at %.0f-%.0f s", truth, lo, hi)
	}
	_, bwhole, _ := estimates(costs, 0.1, before)
	blo, bhi := spread(bwhole)
	if hi-lo > (bhi-blo)/5 {
		t.Errorf("mixed items: the estimate swings over %.0f-%.0f s, the count over the elapsed time over %.0f-%.0f s", lo, hi, blo, bhi)
	}
	for i := 1; i < len(at); i++ {
		if !finished[i] && whole[i]-at[i] > whole[i-1]-at[i-1]+1e-9 {
			t.Fatalf("at %.1f s, with no item finished, the time left rose from %.2f to %.2f s", at[i], whole[i-1]-at[i-1], whole[i]-at[i])
		}
	}
}

// TestProgressFitsTerminal: on a terminal the bar is redrawn within its width less a column,
// narrowing the bar before cutting the line; a log gets the whole line, plain.
func TestProgressFitsTerminal(t *testing.T) {
	label := "cross-validation (5 folds) of gbdt runtime on 3 data sets" // longer than most
	for _, tc := range []struct {
		columns     int
		interactive bool
		wantBar     int // characters between the brackets; -1: the line is cut before the bar ends
	}{
		{200, true, barWidth},
		{98, true, 12}, // 97 characters: the label, " [", the bar and "] 2/5  40.0% 0.2/s ETA 15s"
		{60, true, -1},
		{20, false, barWidth}, // a log: not cut
	} {
		var buf bytes.Buffer
		start := time.Unix(0, 0)
		now := start.Add(10 * time.Second)
		p := &Bar{w: &buf, Label: label, Total: 5, start: start, interactive: tc.interactive,
			columns: func() int { return tc.columns }, now: func() time.Time { return now }}
		p.Update(2)
		if !tc.interactive && (strings.ContainsAny(buf.String(), "\r\x1b") || strings.Count(buf.String(), "\n") != 1) {
			t.Errorf("a log got %q; want one plain line, no redrawing", buf.String())
		}
		out := strings.TrimPrefix(strings.TrimSuffix(strings.TrimSuffix(buf.String(), "\n"), "\x1b[K"), "\r")
		if tc.interactive && utf8.RuneCountInString(out) > tc.columns-1 {
			t.Errorf("%d columns: a line of %d characters: %q", tc.columns, utf8.RuneCountInString(out), out)
		}
		open, shut := strings.Index(out, "["), strings.Index(out, "]")
		switch {
		case tc.wantBar < 0 && shut >= 0:
			t.Errorf("%d columns: %q, want the line cut inside the bar", tc.columns, out)
		case tc.wantBar >= 0 && (shut < 0 || shut-open-1 != tc.wantBar):
			t.Errorf("%d columns: %q, want a bar of %d characters", tc.columns, out, tc.wantBar)
		case tc.wantBar >= 0 && !strings.Contains(out, "2/5  40.0% 0.2/s ETA 15s"):
			t.Errorf("%d columns: %q, want the count, rate and ETA whole", tc.columns, out)
		}
	}
}
