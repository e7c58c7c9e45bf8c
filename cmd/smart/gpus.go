package main

import (
	"context"
	"errors"
)

// runGPUs is a placeholder until issue 5 lands; the helper building issue 5 replaces this file.
func runGPUs(ctx context.Context, e *env, args []string) error {
	return errors.New("gpus is not built yet (issue 5)")
}
