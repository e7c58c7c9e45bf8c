// Package atomicfile writes files so that a reader, or a run started again after a crash, sees
// either the old file or the whole new one, never a part: data sets, models, reports and
// generated sources are all written through it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to a synced temporary file beside path, renames it over path and syncs the
// directory, so the rename itself survives a crash. The file is readable by all (0644).
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("writing %s: syncing %s: %w", path, dir, err)
	}
	return nil
}
