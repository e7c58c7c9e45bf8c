package main

import (
	"context"
	"errors"
)

// runVerify is a placeholder until issue 4 lands; the helper building issue 4 replaces this file.
func runVerify(ctx context.Context, e *env, args []string) error {
	return errors.New("verify is not built yet (issue 4)")
}
