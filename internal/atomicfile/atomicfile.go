// Package atomicfile writes files so that a reader, or a run started again after a crash, sees
// either the old file or the whole new one, never a part: data sets, models, reports and
// generated sources are all written through it.
package atomicfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriteMaybeGzip is Write, with data gzip-compressed where path ends in .gz (as models and
// benchmark_hub's caches are kept).
func WriteMaybeGzip(path string, data []byte) error {
	if strings.HasSuffix(path, ".gz") {
		var z bytes.Buffer
		w, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
		if err == nil {
			if _, err = w.Write(data); err == nil {
				err = w.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("writing %s: compressing: %w", path, err)
		}
		data = z.Bytes()
	}
	return Write(path, data)
}

// Write writes data to a synced temporary file beside path, renames it over path and syncs the
// directory, so the rename itself survives a crash. The file is readable by all (0644). A
// symbolic link is followed: the file it names is replaced, not the link. A path that is not a
// regular file (a device such as /dev/null or /dev/stdout, a FIFO) is written in place, since
// renaming over it would replace the device with a file.
func Write(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	st, statErr := os.Stat(path)
	if statErr == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return writeInPlace(path, data)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, why(dir, err))
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
		if statErr == nil && st.IsDir() {
			err = errors.New("it is a directory")
		} else {
			err = os.Rename(tmp.Name(), path)
		}
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

// writeInPlace writes data to a path that is not a regular file.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Check reports, before a long run, whether Write will be able to create path: its directory
// exists and takes new files, and path is not a directory. A run that finds out only at its end
// loses its work.
func Check(path string) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory", path)
	} else if err == nil && !st.Mode().IsRegular() {
		return nil // written in place (opening a FIFO here would wait for its reader)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, why(dir, err))
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// why says what stops a file being created in dir without the name of the temporary file; the
// error still wraps err (errors.Is(err, fs.ErrNotExist) holds). The system's word alone misleads:
// /proc, which exists, refuses a new file with "no such file or directory".
func why(dir string, err error) error {
	st, serr := os.Stat(dir)
	switch {
	case errors.Is(serr, os.ErrNotExist):
		return reason{fmt.Sprintf("directory %s does not exist", dir), err}
	case serr == nil && !st.IsDir():
		return reason{fmt.Sprintf("%s is not a directory", dir), err}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return reason{fmt.Sprintf("directory %s does not take new files (%v); choose a directory you can write to", dir, pe.Err), err}
	}
	return err
}

// CheckDir reports, before a long run, whether dir can hold new files: it exists and takes
// them, or it does not exist yet and the nearest directory above it takes new entries, so
// that it can be created. It creates nothing that stays.
func CheckDir(dir string) error {
	probe := filepath.Clean(dir)
	for {
		st, err := os.Stat(probe)
		if err == nil && !st.IsDir() {
			return fmt.Errorf("cannot write in %s: %s is not a directory", dir, probe)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) { // ENOTDIR: a file above
			return fmt.Errorf("cannot write in %s: %w", dir, err)
		}
		up := filepath.Dir(probe)
		if up == probe {
			return fmt.Errorf("cannot write in %s: %w", dir, err)
		}
		probe = up
	}
	tmp, err := os.CreateTemp(probe, ".smart-check*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, why(probe, err))
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// reason is an error with its own message that unwraps to the error it explains.
type reason struct {
	msg string
	err error
}

func (r reason) Error() string { return r.msg }
func (r reason) Unwrap() error { return r.err }
