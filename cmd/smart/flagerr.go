package main

import (
	"errors"

	"flag"
	"fmt"
	"math"
	"regexp"
	"smart/app"
	"strconv"
	"time"
)

// flagValueError matches the flag package's error for a value it cannot parse, such as
// `invalid value "-1" for flag -seed: parse error`.
var flagValueError = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-(\S+): (parse error|value out of range)$`)

// flagProblem says what a flag takes where the flag package says only "parse error" or "value
// out of range"; other errors keep their own words.
func flagProblem(fs *flag.FlagSet, err error) string {
	m := flagValueError.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	value, name, why := m[1], m[2], m[3]
	f := fs.Lookup(name)
	if f == nil {
		return err.Error()
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return err.Error()
	}
	var takes string
	wide := "" // the range, for a value out of it
	switch g.Get().(type) {
	case uint64, uint:
		takes = fmt.Sprintf("an integer from 0 to %d", uint64(math.MaxUint64))
	case int, int64: // the command checks its own range after parsing
		takes, wide = "a whole number", fmt.Sprintf(" from %d to %d", math.MinInt64, math.MaxInt64)
	case float64:
		takes = "a number, such as 3, 0.5 or 1e-3"
	case time.Duration:
		takes = "a duration, such as 90s, 10m or 1h30m"
	case bool:
		takes = "true or false, as --" + name + "=false"
	default:
		return err.Error()
	}
	if uq, err := strconv.Unquote(value); err == nil && uq == "" {
		value = "nothing"
	}
	if why == "parse error" {
		return fmt.Sprintf("--%s takes %s, not %s", name, takes, value)
	}
	return fmt.Sprintf("--%s %s is out of range: it takes %s%s", name, value, takes, wide)
}

// settingFlag names the flag of the setting an app.SettingError refuses: flags maps the
// settings' fields to the command's flags. A value that must change is a usage error.
func settingFlag(err error, flags map[string]string) error {
	var se *app.SettingError
	if !errors.As(err, &se) || flags[se.Field] == "" {
		return err
	}
	head := flags[se.Field]
	if se.Value != "" {
		head += " " + se.Value
	}
	if se.Wrong {
		return usagef("%s: %w", head, se.Err)
	}
	return fmt.Errorf("%s: %w", head, se.Err)
}
