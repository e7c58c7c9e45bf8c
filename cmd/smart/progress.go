package main

import "smart/internal/progressbar"

// progress is the bar a command draws on stderr; label and total pass to the bar at each
// update, for the commands that change them as the work goes.
type progress struct {
	label string
	total int
	bar   *progressbar.Bar
}

func newProgress(e *env, label string, total int) *progress {
	return &progress{label, total, progressbar.New(e.stderr, label, total, e.interactive, e.columns)}
}

// Update is progressbar.Bar.Update.
func (p *progress) Update(done int) {
	p.bar.Label, p.bar.Total = p.label, p.total
	p.bar.Update(done)
}

// Stop is progressbar.Bar.Stop.
func (p *progress) Stop(done int) {
	p.bar.Label, p.bar.Total = p.label, p.total
	p.bar.Stop(done)
}

// Done is progressbar.Bar.Done.
func (p *progress) Done() int { return p.bar.Done() }
