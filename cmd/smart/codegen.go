package main

import (
	"context"
	"errors"
)

// runCodegen is a placeholder until issue 4 lands; the helper building issue 4 replaces this file.
func runCodegen(ctx context.Context, e *env, args []string) error {
	return errors.New("codegen is not built yet (issue 4)")
}
