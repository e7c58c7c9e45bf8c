package main

import (
	"context"
	"errors"
)

// runShow is a placeholder until issue 2 lands; the helper building issue 2 replaces this file.
func runShow(ctx context.Context, e *env, args []string) error {
	return errors.New("show is not built yet (issue 2)")
}
