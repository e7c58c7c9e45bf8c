package testctx

import (
	"testing"
	"time"
)

// TestContextBeforeDeadline: under go test's default -timeout the context has a deadline,
// before the test binary's and within the last tenth of the time left (at most a minute
// before it).
func TestContextBeforeDeadline(t *testing.T) {
	binary, ok := t.Deadline()
	ctx := Context(t)
	got, has := ctx.Deadline()
	if !ok {
		if has {
			t.Fatalf("no test deadline, but the context ends at %v", got)
		}
		t.Skip("the test binary has no deadline (-timeout 0)")
	}
	if !has || !got.Before(binary) || binary.Sub(got) > time.Minute || binary.Sub(got) > time.Until(binary)/9 {
		t.Fatalf("context deadline %v (set %v), test deadline %v", got, has, binary)
	}
	if ctx.Err() != nil {
		t.Fatalf("the context has ended already: %v", ctx.Err())
	}
}
