package main

import (
	"context"
	"errors"
)

// runEstimate is a placeholder until issue 5 lands; the helper building issue 5 replaces this file.
func runEstimate(ctx context.Context, e *env, args []string) error {
	return errors.New("estimate is not built yet (issue 5)")
}
