package main

import (
	"context"
	"errors"
)

// runSpace is a placeholder until issue 3 lands; the helper building issue 3 replaces this file.
func runSpace(ctx context.Context, e *env, args []string) error {
	return errors.New("space is not built yet (issue 3)")
}
