package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"smart"
	"smart/internal/csvfile"
)

// A facts file (data/measured/compiled.csv) holds what nvcc made of variants measured before the
// harness reported it (smart.Compiled), compiled again for the same architecture: one line a
// variant, appended as each compiles, with the compiler that gave it.

// CompiledKey names a variant compiled for an architecture (e.g. sm_90).
type CompiledKey struct{ StencilID, OC, Setting, Arch string }

// CompiledFacts are the facts of a facts file, and the compiler behind each.
type CompiledFacts struct {
	Facts    map[CompiledKey]smart.Compiled
	Compiler map[CompiledKey]string
}

// CompiledHeader is a facts file's header.
func CompiledHeader() []string {
	return []string{"stencil_id", "oc", "setting", "arch", "compiler", "regs_per_thread", "local_bytes_per_thread"}
}

// NewCompiledFacts is an empty set of facts.
func NewCompiledFacts() *CompiledFacts {
	return &CompiledFacts{Facts: map[CompiledKey]smart.Compiled{}, Compiler: map[CompiledKey]string{}}
}

// ReadCompiledFacts reads the facts file at path; a missing file is no facts. A last line
// without its newline (a run stopped while appending it) is left out; a bad line elsewhere is
// an error naming it.
func ReadCompiledFacts(path string) (*CompiledFacts, error) {
	f := NewCompiledFacts()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i < len(b)-1 {
		b = b[:i+1]
	}
	if len(b) == 0 { // created, and stopped before its header was written
		return f, nil
	}
	header := CompiledHeader()
	err = csvfile.Read(path, bytes.NewReader(b), header, func(line int, rec []string) error {
		regs, err1 := strconv.Atoi(rec[5])
		local, err2 := strconv.Atoi(rec[6])
		if err1 != nil || err2 != nil || regs < 0 || local < 0 {
			return fmt.Errorf("%s:%d: %s and %s must be counts", path, line, header[5], header[6])
		}
		k := CompiledKey{StencilID: rec[0], OC: rec[1], Setting: rec[2], Arch: rec[3]}
		f.Facts[k] = smart.Compiled{RegsPerThread: regs, LocalBytesPerThread: local}
		f.Compiler[k] = rec[4]
		return nil
	})
	return f, err
}

// Of is what the compiler made of m's variant for arch: the row's own facts where it has them,
// else the file's, else nil; fromFile says which.
func (f *CompiledFacts) Of(m smart.Measurement, arch string) (c *smart.Compiled, fromFile bool) {
	if m.Compiled != nil {
		return m.Compiled, false
	}
	if got, ok := f.Facts[CompiledKey{StencilID: m.StencilID, OC: m.OC.String(), Setting: m.Setting.String(), Arch: arch}]; ok {
		return &got, true
	}
	return nil, false
}
