package atomicfile

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// The rule for the files smart writes (docs/commands.md): an existing file is replaced only when
// smart wrote it, as its contents show, or when the caller forces it. Anything else there (a
// notes file, a source of the user's own) is refused before any work, and nothing is written.

// Kind recognises smart's own output of one kind from an existing file.
type Kind struct {
	What string                          // "a CUDA source", ..., for the refusal
	Ours func(path string) (bool, error) // whether smart wrote the file at path
}

// NotOursError is an existing file that smart did not write, where a write would replace it.
type NotOursError struct {
	Path string
	What string // Kind.What
}

func (e *NotOursError) Error() string {
	return fmt.Sprintf("the file exists and is not %s that smart wrote", e.What)
}

// CheckReplace applies the rule to path, unless force, and checks that path can be written
// (Check), so that a long run does not find out at its end. An empty file or a device
// (/dev/null) is never refused; a file that is not kind's is a *NotOursError.
func CheckReplace(path string, force bool, kind Kind) error {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() > 0 && !force {
		ours, err := kind.Ours(path)
		if err != nil {
			return fmt.Errorf("checking the existing %s: %w", path, err)
		}
		if !ours {
			return &NotOursError{Path: path, What: kind.What}
		}
	}
	return Check(path)
}

// StartingWith recognises a text output by its first bytes.
func StartingWith(what, prefix string) Kind {
	return Kind{what, func(path string) (bool, error) {
		f, err := os.Open(path)
		if err != nil {
			return false, err
		}
		defer f.Close()
		head := make([]byte, len(prefix))
		n, err := io.ReadFull(f, head)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return false, err
		}
		return string(head[:n]) == prefix, nil
	}}
}

// Seal returns text (which ends in a newline) with a last line, begun by comment, holding the
// sha256 of text: a file written so is recognised by Sealed as unedited since.
func Seal(text, comment string) string {
	return fmt.Sprintf("%s%s sha256 %x of the lines above: smart replaces this file only while they are unedited\n", text, comment, sha256.Sum256([]byte(text)))
}

// Sealed recognises a text output that starts with prefix and ends with its Seal intact: one
// edited since it was written (or written without a seal) is not smart's to replace.
func Sealed(what, prefix, comment string) Kind {
	return Kind{what, func(path string) (bool, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return false, err
		}
		s := string(b)
		if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, "\n") {
			return false, nil
		}
		i := strings.LastIndex(s[:len(s)-1], "\n") + 1
		return Seal(s[:i], comment) == s, nil
	}}
}
