package app

import (
	"errors"
	"fmt"
	"strings"

	"smart/internal/atomicfile"
)

// SettingError is a setting of a run that cannot be used: Field names the field of the
// settings struct (GPU, Evaluator, Prior, Classifier, Settings, ...), so that a caller can say
// which of its own inputs to change.
type SettingError struct {
	Field string
	Value string // the value, as it should be quoted in a message; "" when the error says it
	Err   error
	// Wrong is true where another value must be given; false where the value is well formed
	// but what it names failed (a file that does not open).
	Wrong bool
}

func (e *SettingError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Err.Error()
	}
	return e.Field + " " + e.Value + ": " + e.Err.Error()
}

func (e *SettingError) Unwrap() error { return e.Err }

// wrong is a SettingError of a value that must change.
func wrong(field, value string, format string, args ...any) error {
	return &SettingError{Field: field, Value: value, Err: fmt.Errorf(format, args...), Wrong: true}
}

// NameError is a name that names nothing: an evaluator or a strategy that does not exist, or
// an evaluator name without the path its kind needs.
type NameError struct {
	What  string   // "evaluator", "strategy"
	Name  string   // as given
	Known []string // the names it may be
	// NoPath is true for a known kind of evaluator given without its path ("model:").
	NoPath bool
}

func (e *NameError) Error() string {
	if e.NoPath {
		return fmt.Sprintf("%s %q names no path: write %s:PATH", e.What, e.Name, strings.TrimSuffix(e.Name, ":"))
	}
	return fmt.Sprintf("unknown %s %q; the %ss are %s", e.What, e.Name, e.What, JoinList(e.Known, "and"))
}

// JoinList writes names as "a, b or c", the conjunction ("or", "and") before the last.
func JoinList(names []string, conjunction string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conjunction + " " + names[len(names)-1]
}

// checkReplace refuses path (where not empty) if it holds something smart did not write as
// kind, unless replace: a *SettingError of field, of a name to change where the file is not
// smart's.
func checkReplace(field, path string, replace bool, kind atomicfile.Kind) error {
	if path == "" {
		return nil
	}
	if err := atomicfile.CheckReplace(path, replace, kind); err != nil {
		return &SettingError{Field: field, Value: path, Err: err, Wrong: errors.As(err, new(*atomicfile.NotOursError))}
	}
	return nil
}
