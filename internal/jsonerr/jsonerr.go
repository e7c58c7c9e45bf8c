// Package jsonerr turns encoding/json's errors into messages a person who edits a JSON file can
// act on: where the syntax breaks, which field has the wrong type or is unknown, or that the file
// is cut short; and it reads past the byte-order mark an editor may begin a file with.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// BOM is the byte-order mark with which some programs (editors, spreadsheets on Windows) begin
// a UTF-8 file; it is no part of the file's JSON or CSV.
const BOM = "\xef\xbb\xbf"

// TrimBOM is b without the byte-order mark it may begin with.
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte(BOM)) }

// UnknownField returns the name of the field that err, from a json.Decoder that disallows
// unknown fields, says is unknown, and whether err is such an error. encoding/json has no error
// type for unknown fields; its message is the only handle.
func UnknownField(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	quoted, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return "", false
	}
	if name, uerr := strconv.Unquote(quoted); uerr == nil {
		return name, true
	}
	return quoted, true
}

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
