// Package testctx gives a test a context that ends shortly before the test binary's deadline
// (go test -timeout). A test that waits on something that may hang (a computation, a child
// process, a search that should stop) waits on this context instead of a fixed limit: a loaded
// machine cannot outlast it while the run still has time, and a real hang fails naming what
// hung rather than ending the run with a dump of every goroutine.
package testctx

import (
	"context"
	"testing"
	"time"
)

// Context ends a little before t's deadline, with t's context, or never where the test binary
// has no deadline (-timeout 0). The margin, a tenth of the time left and at most a minute, is
// for the failure to be reported.
func Context(t *testing.T) context.Context {
	d, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	margin := min(time.Until(d)/10, time.Minute)
	ctx, cancel := context.WithDeadline(t.Context(), d.Add(-margin))
	t.Cleanup(cancel)
	return ctx
}
