// Package progressbar draws the progress of a long run as a bar with its rate and the time left:
// redrawn in place on a terminal, a line every few seconds in a log.
package progressbar

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Bar draws a bar with rate and ETA on a writer (a command's stderr). On a terminal it redraws
// one line, cut to the terminal's width so that it never wraps (a wrapped line cannot be
// redrawn in place); otherwise it prints a line at most every few seconds so logs stay short.
type Bar struct {
	// Label and Total may change between updates: a label that carries the latest score, a
	// total known only once the work has begun.
	Label string
	Total int
	// From is the count already done when the bar began (a run resuming an earlier one's work):
	// the rate and the time left count only the items after it.
	From int

	w           io.Writer
	start, last time.Time
	interactive bool
	columns     func() int // the terminal's width; nil: 80
	now         func() time.Time
	// done is the count last reported and doneAt when it was first reported, which the
	// estimate of the time left starts from.
	done   int
	doneAt time.Duration
}

// New starts a bar of total items on w, labelled label. interactive is true where w is a
// terminal, columns its width (nil: 80).
func New(w io.Writer, label string, total int, interactive bool, columns func() int) *Bar {
	now := time.Now
	return &Bar{Label: label, Total: total, w: w, start: now(), interactive: interactive, columns: columns, now: now}
}

// Done is the count last reported.
func (p *Bar) Done() int { return p.done }

// Update reports that done of total items are finished; it is cheap to call often.
func (p *Bar) Update(done int) {
	t := p.now()
	elapsed := t.Sub(p.start)
	if done != p.done {
		p.done, p.doneAt = done, elapsed
	}
	every := 5 * time.Second
	if p.interactive {
		every = 100 * time.Millisecond
	}
	if done < p.Total && t.Sub(p.last) < every {
		return
	}
	p.last = t
	draw := func(bar int) string { return p.line(done, elapsed, bar) }
	if p.interactive {
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.fit(draw))
		if done >= p.Total {
			fmt.Fprintln(p.w)
		}
	} else {
		fmt.Fprintln(p.w, draw(barWidth))
	}
}

// Stop closes the bar of work that ended early (a time budget, a target reached) at the count
// actually done, instead of drawing it full.
func (p *Bar) Stop(done int) {
	elapsed := p.now().Sub(p.start)
	draw := func(bar int) string {
		if done >= p.Total {
			return p.line(done, elapsed, bar)
		}
		return fmt.Sprintf("%s, stopped at %d of %d after %s", p.head(done, elapsed, bar), done, p.Total, elapsed.Round(time.Millisecond))
	}
	if p.interactive {
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", p.fit(draw))
	} else {
		fmt.Fprintln(p.w, draw(barWidth))
	}
}

// barWidth is the bar's width in characters where the terminal has room for it.
const barWidth = 30

// line is the bar, bar characters wide, with its estimate of the time left.
func (p *Bar) line(done int, elapsed time.Duration, bar int) string {
	doneAt := elapsed // a count Update has not seen finished now
	if done == p.done {
		doneAt = p.doneAt
	}
	eta := "?"
	switch left, ok := timeLeft(p.Total-p.From, done-p.From, doneAt, elapsed); {
	case done >= p.Total:
		eta = "done in " + elapsed.Round(time.Millisecond).String()
	case !ok:
	case left < 1e6:
		eta = time.Duration(left * float64(time.Second)).Round(time.Second).String()
	default: // beyond 11 days a Duration says nothing useful (and overflows near 292 years)
		eta = "> 11 days"
	}
	return p.head(done, elapsed, bar) + " ETA " + eta
}

// fit draws the line to fit the terminal's width less one column (a character in the last
// column makes some terminals wrap, and a wrapped line cannot be redrawn in place): first the
// bar narrows, down to 5 characters, then the end of the line is cut.
func (p *Bar) fit(draw func(bar int) string) string {
	cols := 80
	if p.columns != nil {
		cols = p.columns()
	}
	room := max(cols-1, 1)
	line := draw(barWidth)
	if over := utf8.RuneCountInString(line) - room; over > 0 {
		line = draw(max(barWidth-over, 5))
	}
	if r := []rune(line); len(r) > room {
		line = string(r[:room])
	}
	return line
}

// head is the bar, the count and the rate.
func (p *Bar) head(done int, elapsed time.Duration, bar int) string {
	frac := 0.0
	if p.Total > 0 {
		frac = float64(done) / float64(p.Total)
	}
	filled := int(frac * float64(bar))
	// The rate waits for as many items as the time left does: over the first item or two it is
	// mostly the time the bar began (a bar drawn once the first item is done showed millions a
	// second).
	rate := "?"
	if n := done - p.From; n > 0 && elapsed > 0 && (done >= p.Total || enough(p.Total-p.From, n)) {
		rate = fmt.Sprintf("%.1f", float64(n)/elapsed.Seconds())
	}
	return fmt.Sprintf("%s [%s%s] %d/%d %5.1f%% %s/s", p.Label, strings.Repeat("=", filled), strings.Repeat(" ", bar-filled),
		done, p.Total, 100*frac, rate)
}

// enough reports whether done of total items are enough to estimate the rest from: 20, or 5%
// of them where fewer. Where items differ in cost, as a campaign's stencils do, an estimate from
// fewer is mostly noise.
func enough(total, done int) bool { return done >= min(20, max(1, total/20)) }

// timeLeft estimates the seconds the total-done items still take, now, when the done-th
// finished at doneAt: each item takes the mean time of those finished (doneAt/done), and the
// time since doneAt is already spent on the next one. Taking the mean at the last finish, not
// now, keeps the estimate from climbing while a slow item runs and dropping when it ends; the
// items not yet started are never counted at less than their mean. ok is false until enough
// items have finished.
func timeLeft(total, done int, doneAt, now time.Duration) (seconds float64, ok bool) {
	if done >= total {
		return 0, true
	}
	if !enough(total, done) {
		return 0, false
	}
	mean := doneAt.Seconds() / float64(done)
	rest := float64(total - done)
	return max(rest*mean-(now-doneAt).Seconds(), (rest-1)*mean), true
}
