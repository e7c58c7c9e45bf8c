// Command smart generates stencils, measures them on GPUs under every optimization combination,
// learns which combination wins and how long a stencil takes on any GPU, recommends a cloud GPU
// and tunes parameters with few real runs. It only parses flags, calls the packages and prints.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"smart"

	"smart/app"
	"smart/generator"
	"smart/internal/progressbar"
)

// env is what a command reads and writes besides its arguments.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// interactive is true when stderr is a terminal: progress bars redraw in place, as wide as
	// columns says the terminal is (nil: 80 columns).
	interactive bool
	columns     func() int
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"generate", "write random (StencilMART Alg. 1) or named stencils", runGenerate},
		{"show", "draw a stencil's pattern in the terminal", runShow},
		{"features", "print a stencil's features and binary tensor", runFeatures},
		{"space", "size, groups and samples of a stencil's setting space", runSpace},
		{"codegen", "write the CUDA source of a stencil under an OC and setting", runCodegen},
		{"verify", "compile generated kernels to PTX and check them on the CPU", runVerify},
		{"gpus", "list the GPU catalogue with sources and prices", runGPUs},
		{"estimate", "analytic-model time of a stencil under an OC and setting", runEstimate},
		{"bench", "measure stencils on a GPU (or the analytic model) into a data set", runBench},
		{"dataset", "import, merge, label and summarise data sets", runDataset},
		{"campaign", "plan and run the measurement campaign of random stencils on lent GPUs", runCampaign},
		{"calibrate", "fit the analytic model's constants to measured data sets, with held-out scores", runCalibrate},
		{"train", "train an OC-selection or runtime model on data sets", runTrain},
		{"eval", "score a model per GPU: cross-validation, leave-one-GPU-out", runEval},
		{"transfer", "predict a kernel's every setting on a GPU it was never measured on, from other GPUs and a few shots", runTransfer},
		{"predict", "best OC, setting and time of a stencil on a GPU, and on every GPU", runPredict},
		{"recommend", "rank GPUs for a stencil by time and by cost, with an HTML report", runRecommend},
		{"tune", "find the fastest setting with few runs: random, iterml, cstuner, pipeline, bayes, descent", runTune},
		{"tune-bench", "compare the tuning strategies on replayed and simulated spaces", runTuneBench},
		{"version", "print the build (version, commit, Go) and the embedded models", runVersion},
	}
}

func main() {
	// The first Ctrl-C (or SIGTERM) cancels ctx, so that a command keeps what it has done; the
	// default handling is then restored, so a second one ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, interactive: progressbar.IsTerminal(os.Stderr),
		columns: func() int { return progressbar.TerminalColumns(os.Stderr) }}
	os.Exit(run(ctx, e, os.Args[1:]))
}

// run executes one command line and returns the exit code: 0 on success, 1 on failure, 2 on a
// usage error.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return run(ctx, e, []string{args[1], "--help"})
		}
		if len(args) == 0 { // nothing asked: the list is the error message
			usage(e.stderr)
			return 2
		}
		usage(e.stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		return exitCode(ctx, e, c.name, c.run(ctx, e, args[1:]))
	}
	fmt.Fprintf(e.stderr, "smart: unknown command %q%s\nRun 'smart help' for the list of commands.\n", args[0], closest(args[0]))
	return 2
}

// exitCode prints err of the command called name, if any, and returns run's exit code for it.
func exitCode(ctx context.Context, e *env, name string, err error) int {
	var u usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		help := cmp.Or(u.cmd, name) // a subcommand's: its own help, not the list of subcommands
		fmt.Fprintf(e.stderr, "smart %s: %v%s\nRun 'smart %s --help' for usage.\n", help, err, advice(name, err), help)
		return 2
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintf(e.stderr, "smart %s: %v\n", name, interrupted(err))
		return 1
	default:
		fmt.Fprintf(e.stderr, "smart %s: %v%s\n", name, err, advice(name, err))
		return 1
	}
}

// interrupted is err of a run cancelled by Ctrl-C in the user's words: "interrupted", not the
// context package's "context canceled". Other errors are as they are.
func interrupted(err error) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), context.Canceled.Error(), "interrupted"))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, withCommands(helpText("smart"), commands(), 10))
}

// withCommands fills help's {commands} with a line per command, names padded to width.
func withCommands(help string, cmds []command, width int) string {
	var list []string
	for _, c := range cmds {
		list = append(list, fmt.Sprintf("  %-*s %s", width, c.name, c.summary))
	}
	return strings.Replace(help, "{commands}", strings.Join(list, "\n"), 1)
}

func closest(name string) string {
	var names []string
	for _, c := range commands() {
		if strings.HasPrefix(c.name, name[:min(2, len(name))]) {
			names = append(names, c.name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
}

// runSubcommand runs the subcommand of group that args name; without one it prints the group's
// help, listing subs.
func runSubcommand(ctx context.Context, e *env, group string, subs []command, args []string) error {
	names := make([]string, len(subs))
	for i, c := range subs {
		if len(args) > 0 && c.name == args[0] {
			err := c.run(ctx, e, args[1:])
			var u usageError
			if errors.As(err, &u) && u.cmd == "" {
				// Around the whole error, which may wrap or join the usage error: the advice
				// names the subcommand's help.
				err = usageError{err: err, cmd: group + " " + c.name}
			}
			return err
		}
		names[i] = c.name
	}
	if len(args) > 0 && args[0] != "-h" && args[0] != "--help" && args[0] != "help" {
		return usagef("unknown subcommand %q; the subcommands are %s", args[0], app.JoinList(names, "and"))
	}
	fmt.Fprintln(e.stdout, withCommands(helpText(group), subs, 7))
	if len(args) == 0 {
		return usagef("name a subcommand")
	}
	return nil
}

// usageError marks errors in how a command was called (exit code 2).
type usageError struct {
	err error
	cmd string // the subcommand called, "dataset merge"; "" for the command itself
}

func (u usageError) Error() string { return u.err.Error() }

// Unwrap gives the library error a usage error wraps (usagef with %w), for advice to find.
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{err: fmt.Errorf(format, args...)} }

// defaultSimGPU names the GPU to simulate where --gpu names none, and says how to name another.
func defaultSimGPU(e *env, gpu *string, doing string) {
	if *gpu == "" {
		*gpu = app.DefaultSimGPU
		fmt.Fprintf(e.stderr, "%s the %s; name another GPU with --gpu (smart gpus lists them)\n", doing, app.DefaultSimGPU)
	}
}

// loadStencil reads a stencil file, stdin for "-", or an embedded sample (generator.Load).
func loadStencil(e *env, path string, lim smart.Limits) (*smart.Stencil, error) {
	return generator.Load(path, e.stdin, lim)
}
