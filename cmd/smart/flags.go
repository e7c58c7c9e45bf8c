package main

import (
	"embed"
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

	"smart"
	"smart/app"
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

// newFlags returns a flag set whose --help prints the command's help file (help/NAME.txt, a
// subcommand's as "dataset-import"): the usage line, the description with examples, then the
// flags. fill replaces the file's placeholders, old and new in turn, with what only the build
// knows (the shapes, the model kinds).
func newFlags(e *env, name string, fill ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "%s\n\nFlags:\n", strings.NewReplacer(fill...).Replace(helpText(name)))
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(e.stderr)
	}
	return fs
}

// helpFiles are the commands' help texts, kept as text so that they read as the user sees them.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText is the help file of the command name, trimmed.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + strings.ReplaceAll(name, " ", "-") + ".txt")
	if err != nil {
		panic(fmt.Sprintf("no help file for %s: %v", name, err)) // TestHelpFiles catches it
	}
	return strings.TrimSpace(string(b))
}

// parse makes the flag set of the command name (newFlags), registers its flags and parses args
// (parseFlags), returning the flag set and the positional arguments.
func parse(e *env, name string, args []string, register func(*flag.FlagSet), fill ...string) (*flag.FlagSet, []string, error) {
	fs := newFlags(e, name, fill...)
	register(fs)
	pos, err := parseFlags(fs, args)
	return fs, pos, err
}

// parseFlags parses args, allowing flags after positional arguments ("smart show f.json --json").
// The help goes to stdout for --help only; a bad flag is one line on stderr (run prints it), not
// the help on stdout, where it would land in a file the output is redirected to.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
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
			return nil, usageError{err: errors.New(flagProblem(fs, err))}
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

// flagsGiven reports whether any of the named flags was given.
func flagsGiven(fs *flag.FlagSet, names ...string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || slices.Contains(names, f.Name) })
	return found
}

// dirList is a repeatable flag of directories; each value may also be comma-separated.
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, ",") }

// Set adds the comma-separated paths of v. A path given twice is an error: its rows would count
// twice.
func (d *dirList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if slices.ContainsFunc(*d, func(q string) bool { return filepath.Clean(q) == filepath.Clean(p) }) {
			return fmt.Errorf("%s is given twice", p)
		}
		*d = append(*d, p)
	}
	return nil
}

// registerCUDA registers the flags of measuring on an NVIDIA GPU that tune, bench and campaign
// run share: reps says what --reps counts, and cut, where not empty, registers --cut (whose 0,
// never, the caller makes -1 for app.CUDAOptions).
func registerCUDA(fs *flag.FlagSet, c *app.CUDAOptions, reps, cut string) {
	fs.IntVar(&c.Device, "device", 0, "NVML index of the GPU to measure on (cuda)")
	fs.IntVar(&c.Reps, "reps", 5, reps)
	fs.StringVar(&c.BuildDir, "build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
	if cut != "" {
		fs.Float64Var(&c.Cut, "cut", 3, cut)
	}
}

// limitsGPU is app.LimitsGPU with the flag of its GPU: --gpu.
func limitsGPU(catFile, name string) (smart.GPU, error) {
	g, err := app.LimitsGPU(catFile, name)
	return g, settingFlag(err, kernelFlags)
}

// kernelFlags name the flag of each field of app.KernelSettings and app.EstimateSettings.
var kernelFlags = map[string]string{"OC": "--oc", "Setting": "--setting", "GPU": "--gpu", "Out": "-o"}
