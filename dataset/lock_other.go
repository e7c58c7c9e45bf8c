//go:build !unix

package dataset

import "os"

// lockFile does nothing where flock is missing: two runs on one data set are then not stopped.
func lockFile(*os.File) error { return nil }

// locks says that lockFile does not lock: whether a file is in use cannot be told.
const locks = false
