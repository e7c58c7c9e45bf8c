// Package cliflag adds to the standard flag package what a command line of several commands
// needs: flags after positional arguments, errors that say what a flag takes where the flag
// package says "parse error", repeatable lists of paths, and whether a flag was given.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Parse parses args into fs, allowing flags after positional arguments ("show f.json --json"),
// and returns the positional arguments; those after "--" are taken as they are. For -h or
// --help it calls fs.Usage and returns flag.ErrHelp; any other error it returns reworded
// (Problem) with nothing printed, so that the caller decides where a one-line error goes and
// the help never lands in a file the output is redirected to.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	help, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = help; fs.SetOutput(out) }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				help()
				return nil, err
			}
			return nil, errors.New(Problem(fs, err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// valueError matches the flag package's error for a value it cannot parse, such as
// `invalid value "-1" for flag -seed: parse error`.
var valueError = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-(\S+): (parse error|value out of range)$`)

// Problem says what a flag of fs takes where the flag package's err says only "parse error" or
// "value out of range"; other errors keep their own words.
func Problem(fs *flag.FlagSet, err error) string {
	m := valueError.FindStringSubmatch(err.Error())
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

// Given reports whether any of the named flags was set on the command line.
func Given(fs *flag.FlagSet, names ...string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || slices.Contains(names, f.Name) })
	return found
}

// Paths is a repeatable flag of paths; each value may also be comma-separated.
type Paths []string

func (p *Paths) String() string { return strings.Join(*p, ",") }

// Set adds the comma-separated paths of v. A path given twice is an error: what it holds would
// count twice.
func (p *Paths) Set(v string) error {
	for _, path := range strings.Split(v, ",") {
		if path = strings.TrimSpace(path); path == "" {
			continue
		}
		if slices.ContainsFunc(*p, func(q string) bool { return filepath.Clean(q) == filepath.Clean(path) }) {
			return fmt.Errorf("%s is given twice", path)
		}
		*p = append(*p, path)
	}
	return nil
}

// ForField names the flag of fs that sets a settings struct's field, by the convention that
// the flag's name without its dashes is the field's name in lower case (MaxOrder: max-order,
// AllGPUs: all-gpus, CV: cv); "" where fs has no such flag.
func ForField(fs *flag.FlagSet, field string) string {
	name := ""
	fs.VisitAll(func(f *flag.Flag) {
		if strings.ReplaceAll(f.Name, "-", "") == strings.ToLower(field) {
			name = f.Name
		}
	})
	return name
}
