// Package jsonerr turns encoding/json's errors into messages a person who edits a JSON file can
// act on: where the syntax breaks, which field has the wrong type, or that the file is cut short.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Describe rewrites a decoding error; other errors pass through unchanged.
func Describe(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at byte %d: %w", syn.Offset, err)
	case errors.As(err, &typ):
		return fmt.Errorf("field %q has a JSON %s where a %s is expected", typ.Field, typ.Value, typ.Type)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: the file is empty or cut short")
	}
	return err
}
