package main

import (
	"context"
	"errors"
)

// runBench is a placeholder until issue 6 lands; the helper building issue 6 replaces this file.
func runBench(ctx context.Context, e *env, args []string) error {
	return errors.New("bench is not built yet (issue 6)")
}
