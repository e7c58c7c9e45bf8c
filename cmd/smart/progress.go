package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a bar with rate and ETA on stderr. On a terminal it redraws one line; otherwise
// it prints a line at most every few seconds so logs stay short.
type progress struct {
	w           io.Writer
	label       string
	total       int
	start, last time.Time
	interactive bool
	now         func() time.Time
}

func newProgress(e *env, label string, total int) *progress {
	now := time.Now
	t := now()
	return &progress{w: e.stderr, label: label, total: total, start: t, interactive: e.interactive, now: now}
}

// Update reports that done of total items are finished; it is cheap to call often.
func (p *progress) Update(done int) {
	t := p.now()
	every := 5 * time.Second
	if p.interactive {
		every = 100 * time.Millisecond
	}
	if done < p.total && t.Sub(p.last) < every {
		return
	}
	p.last = t
	line := p.line(done, t.Sub(p.start))
	if p.interactive {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		if done >= p.total {
			fmt.Fprintln(p.w)
		}
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// Stop closes the bar of work that ended early (a time budget, a target reached) at the count
// actually done, instead of drawing it full.
func (p *progress) Stop(done int) {
	elapsed := p.now().Sub(p.start)
	line := p.line(done, elapsed)
	if done < p.total {
		line = fmt.Sprintf("%s, stopped at %d of %d after %s", p.head(done, elapsed), done, p.total, elapsed.Round(time.Millisecond))
	}
	if p.interactive {
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// line is the bar with its estimate of the time left.
func (p *progress) line(done int, elapsed time.Duration) string {
	eta := "?"
	if done > 0 && done < p.total {
		rate := float64(done) / max(elapsed.Seconds(), 1e-9)
		if left := float64(p.total-done) / rate; left < 1e6 { // beyond 11 days a Duration says nothing useful (and overflows near 292 years)
			eta = time.Duration(left * float64(time.Second)).Round(time.Second).String()
		} else {
			eta = "> 11 days"
		}
	} else if done >= p.total {
		eta = "done in " + elapsed.Round(time.Millisecond).String()
	}
	return p.head(done, elapsed) + " ETA " + eta
}

// head is the bar, the count and the rate.
func (p *progress) head(done int, elapsed time.Duration) string {
	const width = 30
	frac := 0.0
	if p.total > 0 {
		frac = float64(done) / float64(p.total)
	}
	filled := int(frac * width)
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	return fmt.Sprintf("%s [%s] %d/%d %5.1f%% %.1f/s", p.label, bar, done, p.total, 100*frac, rate)
}
