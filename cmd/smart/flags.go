package main

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"strings"

	"smart/app"
	"smart/internal/cliflag"
)

// settingFlag names the flag of the setting an app.SettingError refuses: the flag of fs named
// for the field (cliflag.ForField), or except's flag for a field named otherwise. A value that
// must change is a usage error.
func settingFlag(fs *flag.FlagSet, err error, except map[string]string) error {
	var se *app.SettingError
	if !errors.As(err, &se) {
		return err
	}
	head := except[se.Field]
	if f := cliflag.ForField(fs, se.Field); head == "" && f != "" {
		head = "--" + f
	}
	if head == "" {
		return err
	}
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
// (cliflag.Parse: a bad flag is a usage error), returning the flag set and the positional
// arguments.
func parse(e *env, name string, args []string, register func(*flag.FlagSet), fill ...string) (*flag.FlagSet, []string, error) {
	fs := newFlags(e, name, fill...)
	register(fs)
	pos, err := cliflag.Parse(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		err = usageError{err: err}
	}
	if err == nil {
		err = dashOutput(fs)
	}
	return fs, pos, err
}

// outputFlags name files or directories a command writes.
var outputFlags = []string{"o", "out", "html", "trace", "emit", "record", "dataset"}

// dashOutput refuses - as an output a flag takes as a file name: it would make a file named -.
// A flag whose usage says - is standard output takes it (codegen -o, generate --out).
func dashOutput(fs *flag.FlagSet) error {
	for _, name := range outputFlags {
		f := fs.Lookup(name)
		if f == nil || f.Value.String() != "-" || strings.Contains(f.Usage, "- is stdout") || strings.Contains(f.Usage, "- for stdout") {
			continue
		}
		dash := "--"
		if len(name) == 1 {
			dash = "-"
		}
		return usagef("%s%s -: give a file name; standard output holds what the command prints (--json for scripts)", dash, name)
	}
	return nil
}

// noArgs refuses the positional arguments of a command that takes none; hint says what to give
// instead, as "; give data sets with --data".
func noArgs(rest []string, hint string) error {
	if len(rest) > 0 {
		return usagef("unexpected argument %q%s", rest[0], hint)
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
	fs.IntVar(&c.PerUnit, "per-unit", 0, "variants compiled in one nvcc run (cuda; 0: 24): fewer spread heavy stencils over more cores")
	if cut != "" {
		fs.Float64Var(&c.Cut, "cut", 3, cut)
	}
}
