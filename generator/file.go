package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"smart"
	"smart/internal/atomicfile"
)

// Marshal writes s as a stencil file laid out for reading: one field per line, one offset per
// line and one coefficient per line. smart.ParseStencil reads it back exactly.
func Marshal(s *smart.Stencil) ([]byte, error) {
	compact, err := s.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding stencil %s: %w", s.Name, err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("encoding stencil %s: %w", s.Name, err)
	}
	out := collapseShortArrays(ind.Bytes())
	return append(out, '\n'), nil
}

// collapseShortArrays puts arrays of at most three numbers (offsets, the grid) on one line.
// It tracks strings so that brackets inside a name are left alone.
func collapseShortArrays(b []byte) []byte {
	const numberish = " \n\t0123456789eE+-.,"
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[':
			j := i + 1
			for j < len(b) && strings.IndexByte(numberish, b[j]) >= 0 {
				j++
			}
			if j < len(b) && b[j] == ']' {
				if f := strings.Fields(strings.ReplaceAll(string(b[i+1:j]), ",", " ")); len(f) <= 3 {
					out = append(out, '[')
					out = append(out, strings.Join(f, ", ")...)
					out = append(out, ']')
					i = j
					continue
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// WriteFile writes s to path with Marshal, atomically: readers see the old file or the whole
// new one, never a part.
func WriteFile(path string, s *smart.Stencil) error {
	data, err := Marshal(s)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}
