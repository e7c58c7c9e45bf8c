package cliflag

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
)

// newSet is a flag set of each kind of value Problem knows.
func newSet() *flag.FlagSet {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Uint64("seed", 1, "")
	fs.Int("budget", 0, "")
	fs.Float64("share", 0, "")
	fs.Duration("time", 0, "")
	fs.Bool("json", false, "")
	fs.String("order-max", "", "")
	fs.Bool("all-gpus", false, "")
	fs.Int("cv", 0, "")
	return fs
}

func TestParseTakesFlagsAfterArguments(t *testing.T) {
	fs := newSet()
	pos, err := Parse(fs, []string{"a.json", "--json", "b.json", "--budget", "3", "--", "--c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.json", "b.json", "--c"}; !slices.Equal(pos, want) {
		t.Errorf("positional %q, want %q", pos, want)
	}
	if !Given(fs, "json") || !Given(fs, "cv", "budget") || Given(fs, "seed", "share") {
		t.Error("Given does not match the flags set")
	}
	if got := fs.Lookup("budget").Value.String(); got != "3" {
		t.Errorf("--budget %s, want 3", got)
	}
}

func TestParseHelpCallsUsageOnly(t *testing.T) {
	fs := newSet()
	called := 0
	fs.Usage = func() { called++ }
	if _, err := Parse(fs, []string{"--help"}); !errors.Is(err, flag.ErrHelp) || called != 1 {
		t.Errorf("--help: %v, usage called %d times", err, called)
	}
	if _, err := Parse(fs, []string{"--nope"}); err == nil || called != 1 {
		t.Errorf("an unknown flag: %v, usage called %d times (want the error alone)", err, called)
	}
}

func TestProblem(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", "-1"}, `--seed takes an integer from 0 to 18446744073709551615, not "-1"`},
		{[]string{"--budget", "x"}, `--budget takes a whole number, not "x"`},
		{[]string{"--budget", "99999999999999999999"}, `--budget "99999999999999999999" is out of range: it takes a whole number from -9223372036854775808 to 9223372036854775807`},
		{[]string{"--share", ""}, "--share takes a number, such as 3, 0.5 or 1e-3, not nothing"},
		{[]string{"--time", "5"}, `--time takes a duration, such as 90s, 10m or 1h30m, not "5"`},
		{[]string{"--json=maybe"}, `--json takes true or false, as --json=false, not "maybe"`},
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
	} {
		_, err := Parse(newSet(), tc.args)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v\nwant %s", tc.args, err, tc.want)
		}
	}
}

func TestPathsRefusesOneGivenTwice(t *testing.T) {
	var p Paths
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&p, "data", "")
	if _, err := Parse(fs, []string{"--data", "a, b/", "--data", "c"}); err != nil || !slices.Equal(p, Paths{"a", "b/", "c"}) {
		t.Fatalf("%q: %v", p, err)
	}
	if _, err := Parse(fs, []string{"--data", "./a"}); err == nil {
		t.Error("a path given twice passed")
	}
}

func TestForField(t *testing.T) {
	fs := newSet()
	// MaxOrder's flag is order-max and OCs' would be oc: not the convention, the caller's to name.
	for field, want := range map[string]string{"AllGPUs": "all-gpus", "CV": "cv", "Seed": "seed", "Time": "time", "MaxOrder": "", "OCs": ""} {
		if got := ForField(fs, field); got != want {
			t.Errorf("ForField(%s) = %q, want %q", field, got, want)
		}
	}
}
