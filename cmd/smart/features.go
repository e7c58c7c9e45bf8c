package main

import (
	"context"
	"errors"
)

// runFeatures is a placeholder until issue 2 lands; the helper building issue 2 replaces this file.
func runFeatures(ctx context.Context, e *env, args []string) error {
	return errors.New("features is not built yet (issue 2)")
}
