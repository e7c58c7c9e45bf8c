// Package jsonerr turns encoding/json's errors into messages a person who edits a JSON file can
// act on: where the syntax breaks, which field has the wrong type, or that the file is cut short.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// Describe rewrites a decoding error; other errors pass through unchanged.
func Describe(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at byte %d: %w", syn.Offset, err)
	case errors.As(err, &typ):
		where := "the file"
		if typ.Field != "" {
			where = fmt.Sprintf("field %q", typ.Field)
		}
		return fmt.Errorf("%s has a JSON %s where %s is expected", where, typ.Value, Expected(typ.Type))
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: the file is empty or cut short")
	}
	return err
}

// Expected names what a Go type decodes from in JSON's words, not Go's: the person who edits
// the file knows JSON, not the types it is read into.
func Expected(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Expected(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "another value"
}
