package main

import (
	"context"
	"errors"
)

// runGenerate is a placeholder until issue 2 lands; the helper building issue 2 replaces this file.
func runGenerate(ctx context.Context, e *env, args []string) error {
	return errors.New("generate is not built yet (issue 2)")
}
