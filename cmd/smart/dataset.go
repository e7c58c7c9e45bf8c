package main

import (
	"context"
	"errors"
)

// runDataset is a placeholder until issue 6 lands; the helper building issue 6 replaces this file.
func runDataset(ctx context.Context, e *env, args []string) error {
	return errors.New("dataset is not built yet (issue 6)")
}
