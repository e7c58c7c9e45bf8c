package smart_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"smart/internal/testctx"
)

// TestExamples runs every example of the README, of docs/ and of each command's --help in a
// copy of what a clone holds, and fails naming the example's source and its output when it
// exits non-zero, or when a console block shows an output line it does not print (elisions,
// times, rates and dates aside). docs/commands.md ("Every example runs") states the rules for users:
//
//   - In markdown, an example is a line of a ```sh or ```console block (after "$ ") in which smart
//     or bin/smart starts a command (the line's start, or after &&, ;, | or do), with the lines
//     its trailing "\" continues, or a for loop through its done. Other lines (go build,
//     scripts, output) do not run, except NAME=value lines, which set NAME for the examples after
//     them in the block.
//   - In --help, an example is a line under "Example:" or "Examples:" that starts with "smart ".
//   - Examples of one source run in order in one copy of the clone, so an example may read what
//     an earlier one wrote. A source is a markdown file, or the --help texts, in the order of
//     'smart help', of commands linked by the paths the clone lacks that their examples name.
//   - A comment "needs a GPU" skips the example where nvidia-smi is absent; "takes a minute" (or
//     minutes, or hours) skips it unless SMART_EXAMPLES=all. A tool it pipes to (jq, python3) or that it
//     needs (clang-14 and g++ for smart verify) skips it when missing, as does a $SMART_...
//     variable that is unset. The examples after a skipped one in its block are skipped too.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the smart binary and runs every example")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	files, err := cloneFiles()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "smart")
	if b, err := exec.Command("go", "build", "-o", bin, "./cmd/smart").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	sources, err := markdownExamples(files)
	if err != nil {
		t.Fatal(err)
	}
	help, err := helpExamples(bin)
	if err != nil {
		t.Fatal(err)
	}
	sources = append(sources, splitByFiles(help, files)...)

	var mu sync.Mutex
	tally := map[string]int{}
	count := func(outcome string) {
		mu.Lock()
		defer mu.Unlock()
		tally[outcome]++
	}
	t.Run("source", func(t *testing.T) {
		for _, src := range sources {
			if len(src.examples) > 0 {
				t.Run(src.name, func(t *testing.T) {
					t.Parallel()
					runSource(t, src, files, bin, count)
				})
			}
		}
	})
	keys := make([]string, 0, len(tally))
	total := 0
	for k, n := range tally {
		keys = append(keys, k)
		total += n
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%3d of %d examples %s", tally[k], total, k)
	}
}

// runSource runs the examples of src in order in a copy of the clone's files, and counts each
// outcome ("run", or "skipped: " and the reason).
func runSource(t *testing.T, src source, files []string, bin string, count func(outcome string)) {
	dir := t.TempDir()
	if err := copyClone(files, dir); err != nil {
		t.Fatal(err)
	}
	// bin/smart, where the README builds it; PATH finds it as smart.
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "smart")); err != nil {
		t.Fatal(err)
	}
	skippedBlock, skippedAt := -1, ""
	for _, ex := range src.examples {
		reason := ex.skipReason()
		if reason == "" && ex.block == skippedBlock {
			reason = "follows a skipped example (" + skippedAt + ")"
		}
		if reason != "" && skippedBlock != ex.block {
			skippedBlock, skippedAt = ex.block, ex.where
		}
		if reason != "" {
			count("skipped: " + reason)
		} else {
			count("run")
		}
		t.Run(ex.where, func(t *testing.T) {
			if reason != "" {
				t.Skipf("%s (%s)", reason, ex.command)
			}
			start := time.Now()
			out, err := ex.run(t, dir)
			if err != nil {
				t.Errorf("%s: %s\n%v; its output:\n%s", ex.where, ex.command, err, tail(out, 4000))
			} else if gone := ex.missing(out); len(gone) > 0 {
				t.Errorf("%s: %s\nprints no line\n  %s\nthat the documentation shows; its output:\n%s", ex.where, ex.command, strings.Join(gone, "\n  "), tail(out, 4000))
			}
			t.Logf("%.1f s: %s", time.Since(start).Seconds(), ex.command)
		})
	}
}

// example is one command line of the documentation.
type example struct {
	where   string // file:line, or "smart CMD --help #N"
	command string // as written, continuations included
	vars    []string
	block   int // the code block (or --help text) it is in, numbered in its source
	// shown is the output a console block shows under the command, up to the next "$ ".
	shown []string
}

// unshown is the output of a run that a console block is not held to: elisions, and what
// changes from run to run or machine to machine (elapsed times and rates, dates, hashes of a
// build, the commit).
var unshown = regexp.MustCompile(`\.\.\.|…|\bdone in\b|\brows?/s\b|rows a minute|\b\d{4}-\d{2}-\d{2}\b|\bsha256\b|ms per evaluation|^commit |^built with |^smart \S+ \(module|\d+(\.\d+)?\s?(ms|s)(, | to |$)|\bwrote \S*\.tmp`)

// missing returns the lines of shown, those a run is held to, that out lacks.
func (ex example) missing(out []byte) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		have[strings.TrimRight(l, " \r")] = true
	}
	var gone []string
	for _, l := range ex.shown {
		l = strings.TrimRight(l, " ")
		if l != "" && !unshown.MatchString(l) && !have[l] {
			gone = append(gone, l)
		}
	}
	return gone
}

var (
	needsGPU = regexp.MustCompile(`(^|\s)#.*\bneeds a GPU\b`)
	slowMark = regexp.MustCompile(`(^|\s)#.*\btakes (a minute|minutes|hours)\b`)
	// the clone the examples run in holds the files, not the commits: a figure recomputed from
	// an earlier commit's files (git show) cannot run there
	needsHistory = regexp.MustCompile(`(^|\s)#.*\bneeds the git history\b`)
	envVar       = regexp.MustCompile(`\$\{?(SMART_[A-Z0-9_]+)`)
	assignment   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*$`)
	// smart (or bin/smart) where a command starts: the line's start, or after &&, ;, | or do
	runsSmart = regexp.MustCompile(`(^|&&|;|\||\bdo)\s*(bin/)?smart\s`)
	loopEnd   = regexp.MustCompile(`\bdone\s*(#.*)?$`)
	// a pipeline stage's program: after | (not ||), outside quotes
	piped  = regexp.MustCompile(`(?:^|[^|])\|\s*([A-Za-z0-9_.+-]+)`)
	quoted = regexp.MustCompile(`'[^']*'|"[^"]*"`)
)

// skipReason says why the example cannot run here, or "" when it can.
func (ex example) skipReason() string {
	if needsGPU.MatchString(ex.command) {
		if _, err := exec.LookPath("nvidia-smi"); err != nil {
			return "needs a GPU (no nvidia-smi)"
		}
	}
	if needsHistory.MatchString(ex.command) {
		return "needs the git history (the clone holds the files alone)"
	}
	if slowMark.MatchString(ex.command) && os.Getenv("SMART_EXAMPLES") != "all" {
		return "takes a minute or more (SMART_EXAMPLES=all runs it)"
	}
	for _, m := range envVar.FindAllStringSubmatch(ex.command, -1) {
		if os.Getenv(m[1]) == "" {
			return "needs $" + m[1]
		}
	}
	tools := []string{}
	for _, m := range piped.FindAllStringSubmatch(quoted.ReplaceAllString(ex.command, `''`), -1) {
		if m[1] != "smart" {
			tools = append(tools, m[1])
		}
	}
	if strings.Contains(ex.command, "smart verify ") {
		tools = append(tools, "clang-14", "g++")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			return "needs " + tool
		}
	}
	return ""
}

// run runs the example with bash in dir, bin/smart first on the PATH, and returns its output.
// Every stage of a pipeline must succeed, except that one before the last may end by SIGPIPE
// (smart ... | head -8).
func (ex example) run(t *testing.T, dir string) ([]byte, error) {
	script := strings.Join(ex.vars, "\n") + "\n" + ex.command + `
st=("${PIPESTATUS[@]}")
for i in "${!st[@]}"; do
  if [ "${st[$i]}" != 0 ] && { [ "$i" = $((${#st[@]} - 1)) ] || [ "${st[$i]}" != 141 ]; }; then
    echo "exit status of the pipeline: ${st[*]}" >&2; exit 1
  fi
done
`
	cmd := exec.CommandContext(testctx.Context(t), "bash", "-c", script)
	cmd.Dir = dir
	tmp := filepath.Join(dir, ".tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp)
	return cmd.CombinedOutput()
}

// source is a file (or the --help texts) and its examples in order.
type source struct {
	name     string
	examples []example
}

// markdownExamples returns the examples of README.md and the markdown files under docs/ among
// the clone's files.
func markdownExamples(files []string) ([]source, error) {
	var sources []source
	for _, f := range files {
		if f != "README.md" && !(strings.HasPrefix(f, "docs/") && strings.HasSuffix(f, ".md")) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sources = append(sources, source{name: f, examples: parseMarkdown(f, b)})
	}
	return sources, nil
}

var fence = regexp.MustCompile("^(\\s*)```(\\S*)")

// parseMarkdown returns the examples of one markdown file (name for their places).
func parseMarkdown(name string, b []byte) []example {
	var out []example
	lines := strings.Split(string(b), "\n")
	for i, block := 0, 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, lang := m[1], m[2]
		block++
		var vars []string
		for i++; i < len(lines) && !fence.MatchString(lines[i]); i++ {
			if lang != "sh" && lang != "console" {
				continue
			}
			start := i + 1
			line := strings.TrimPrefix(lines[i], indent)
			if lang == "console" {
				var ok bool
				if line, ok = strings.CutPrefix(line, "$ "); !ok {
					continue
				}
			}
			command := line
			loop := strings.HasPrefix(line, "for ")
			for i+1 < len(lines) && (strings.HasSuffix(strings.TrimSpace(line), `\`) || loop && !loopEnd.MatchString(line)) {
				i++
				line = strings.TrimPrefix(lines[i], indent)
				command += "\n" + line
			}
			var shown []string
			if lang == "console" {
				for i+1 < len(lines) && !fence.MatchString(lines[i+1]) && !strings.HasPrefix(strings.TrimPrefix(lines[i+1], indent), "$ ") {
					i++
					shown = append(shown, strings.TrimPrefix(lines[i], indent))
				}
			}
			switch {
			case assignment.MatchString(command):
				vars = append(vars, command)
			case runsSmart.MatchString(command):
				out = append(out, example{where: fmt.Sprintf("%s:%d", name, start), command: command, vars: slices.Clone(vars), block: block, shown: shown})
			}
		}
	}
	return out
}

// helpExamples returns the examples of every command's --help, or of its subcommands', in the
// order 'smart help' lists them; a help without an example is an error ('smart help' promises
// one).
func helpExamples(bin string) (source, error) {
	src := source{name: "help"}
	list, err := exec.Command(bin, "help").Output()
	if err != nil {
		return src, fmt.Errorf("smart help: %w", err)
	}
	block := 0
	for _, cmd := range listed(list, "Commands:") {
		names := [][]string{{cmd}}
		out, err := exec.Command(bin, cmd, "--help").Output()
		if err != nil {
			return src, fmt.Errorf("smart %s --help: %w", cmd, err)
		}
		for _, sub := range listed(out, "Subcommands:") {
			names = append(names, []string{cmd, sub})
		}
		if len(names) > 1 {
			names = names[1:] // a command with subcommands has its examples in theirs
		}
		for _, name := range names {
			out, err := exec.Command(bin, append(name, "--help")...).Output()
			if err != nil {
				return src, fmt.Errorf("smart %s --help: %w", strings.Join(name, " "), err)
			}
			where := "smart " + strings.Join(name, " ") + " --help"
			block++
			cmds := helpCommands(out)
			if len(cmds) == 0 {
				return src, fmt.Errorf("%s has no example (a line under \"Examples:\" that starts with \"smart \")", where)
			}
			for j, c := range cmds {
				src.examples = append(src.examples, example{where: fmt.Sprintf("%s #%d", where, j+1), command: c, block: block})
			}
		}
	}
	return src, nil
}

// splitByFiles splits the --help examples into sources that share no file: the examples of two
// commands stay together, in order, when both name a path the clone lacks (runs/a100-sim, written
// by bench and read by train), so that the others run in parallel in copies of their own.
func splitByFiles(help source, files []string) []source {
	inClone := map[string]bool{}
	for _, f := range files {
		for p := f; p != "."; p = filepath.Dir(p) {
			inClone[p] = true
		}
	}
	group := map[int]int{} // block -> the first block of its group
	var find func(int) int
	find = func(b int) int {
		if g, ok := group[b]; ok && g != b {
			group[b] = find(g)
			return group[b]
		}
		return b
	}
	owner := map[string]int{} // a path the clone lacks -> the first block naming it
	for _, ex := range help.examples {
		if _, ok := group[ex.block]; !ok {
			group[ex.block] = ex.block
		}
		for _, m := range word.FindAllStringSubmatch(ex.command, -1) {
			word := strings.TrimSuffix(m[1], "/")
			if inClone[word] || !strings.Contains(m[1], "/") && filepath.Ext(word) == "" {
				continue
			}
			if b, ok := owner[word]; ok {
				group[find(ex.block)] = find(b)
			} else {
				owner[word] = ex.block
			}
		}
	}
	var out []source
	index := map[int]int{} // group -> its source in out
	for _, ex := range help.examples {
		g := find(ex.block)
		i, ok := index[g]
		if !ok {
			i = len(out)
			index[g] = i
			out = append(out, source{name: help.name + "/" + strings.Fields(ex.where)[1]})
		}
		out[i].examples = append(out[i].examples, ex)
	}
	return out
}

// word is a word of a command line, or of a flag's value, that is not a flag.
var word = regexp.MustCompile(`(?:^|[\s=,:])([A-Za-z0-9_.][A-Za-z0-9_./-]*)`)

// listed returns the first word of each line of the list under heading (up to a blank line).
func listed(text []byte, heading string) []string {
	var names []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == heading:
			in = true
		case in && strings.TrimSpace(line) == "":
			return names
		case in:
			names = append(names, strings.Fields(line)[0])
		}
	}
	return names
}

// helpCommands returns the commands under "Example:" or "Examples:" of a --help text.
func helpCommands(text []byte) []string {
	var cmds []string
	in := false
	for _, line := range strings.Split(string(text), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case line == "Example:" || line == "Examples:":
			in = true
		case !in:
		case trimmed == "":
			in = false
		case len(cmds) > 0 && strings.HasSuffix(cmds[len(cmds)-1], `\`):
			cmds[len(cmds)-1] += "\n" + line
		case strings.HasPrefix(trimmed, "smart "):
			cmds = append(cmds, trimmed)
		}
	}
	return cmds
}

// cloneFiles lists the files a clone of the checkout holds: those git tracks (a new file counts
// once it is git-added), as they are in the working tree.
func cloneFiles() ([]string, error) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("git ls-files lists no files")
	}
	return files, nil
}

// copyClone copies the files (as they are in the working tree) into dir.
func copyClone(files []string, dir string) error {
	for _, f := range files {
		if err := copyFile(f, filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

// tail returns the last n bytes of b, marked as cut where it was.
func tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return "..." + string(b[len(b)-n:])
}

// TestParseExamples holds the extraction to the rules of TestExamples: which lines are examples,
// where each starts, what continues it and which variables it sees.
func TestParseExamples(t *testing.T) {
	doc := "text\n" +
		"```sh\n" +
		"go build -o bin/smart ./cmd/smart\n" +
		"K=data/kt\n" +
		"bin/smart tune --evaluator replay:$K/a.json.gz \\\n" +
		"  --budget 10   # needs a GPU\n" +
		"SMART=bin/smart bench/run.sh\n" +
		"cp -r a b && smart dataset label b\n" +
		"for g in a b; do\n" +
		"  smart bench --gpu $g --out $g; done   # takes minutes\n" +
		"```\n" +
		"```console\n" +
		"$ smart version\n" +
		"smart v0 (module smart)\n" +
		"$ ls | head\n" +
		"```\n" +
		"```\n" +
		"smart plain fence, not run\n" +
		"```\n" +
		"- item\n" +
		"  ```sh\n" +
		"  smart show j3d7pt | jq .\n" +
		"  ```\n"
	got := parseMarkdown("d.md", []byte(doc))
	want := []example{
		{where: "d.md:5", command: "bin/smart tune --evaluator replay:$K/a.json.gz \\\n  --budget 10   # needs a GPU", vars: []string{"K=data/kt"}, block: 1},
		{where: "d.md:8", command: "cp -r a b && smart dataset label b", vars: []string{"K=data/kt"}, block: 1},
		{where: "d.md:9", command: "for g in a b; do\n  smart bench --gpu $g --out $g; done   # takes minutes", vars: []string{"K=data/kt"}, block: 1},
		{where: "d.md:13", command: "smart version", block: 2, shown: []string{"smart v0 (module smart)"}},
		{where: "d.md:22", command: "smart show j3d7pt | jq .", block: 4},
	}
	if len(got) != len(want) {
		t.Fatalf("%d examples, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].where != want[i].where || got[i].command != want[i].command || got[i].block != want[i].block || !slices.Equal(got[i].vars, want[i].vars) ||
			!slices.Equal(got[i].shown, want[i].shown) {
			t.Errorf("example %d: %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if !needsGPU.MatchString(got[0].command) || !slowMark.MatchString(got[2].command) || needsGPU.MatchString(got[1].command) {
		t.Errorf("marks: gpu %v, slow %v", needsGPU.MatchString(got[0].command), slowMark.MatchString(got[2].command))
	}

	help := "Usage: smart x\n\nExamples:\n  smart x a\n  smart x b \\\n    --c d\n  smart x e   # needs a GPU\n\nFlags:\n  -c string\n"
	if cmds := helpCommands([]byte(help)); !slices.Equal(cmds, []string{"smart x a", "smart x b \\\n    --c d", "smart x e   # needs a GPU"}) {
		t.Errorf("help examples %q", cmds)
	}
}

// TestMissing: a run is held to the lines a console block shows, but not to elisions, times,
// rates and dates.
func TestMissing(t *testing.T) {
	ex := example{shown: []string{"j3d7pt: 3-D, order 1", "  OC   ms/step", "  ...", "predict done in 95ms", "0s, 12684 rows/s",
		"created 2026-11-27", "bayes, seed 1: 60 evaluations (0 failed), stopped: evaluations, 189ms (strategy 3.14 ms per evaluation)", ""}}
	if gone := ex.missing([]byte("j3d7pt: 3-D, order 1\n  OC   ms/step  \nother\n")); len(gone) != 0 {
		t.Errorf("missing %q from an output that has every line held", gone)
	}
	if gone := ex.missing([]byte("j3d7pt: 3-D, order 2\n  OC   ms/step\n")); !slices.Equal(gone, []string{"j3d7pt: 3-D, order 1"}) {
		t.Errorf("missing %q; want the line that changed", gone)
	}
}

// TestSkipReason: marks, missing tools and unset variables skip an example; one without needs runs.
func TestSkipReason(t *testing.T) {
	t.Setenv("SMART_EXAMPLES", "")
	t.Setenv("SMART_UNSET_FOR_TEST", "")
	_, noGPU := exec.LookPath("nvidia-smi")
	for _, tc := range []struct {
		command, reason string
	}{
		{"smart version", ""},
		{"smart bench --out x   # takes minutes (8 here)", "takes a minute or more (SMART_EXAMPLES=all runs it)"},
		{"smart tune-bench $SMART_UNSET_FOR_TEST/a.json.gz", "needs $SMART_UNSET_FOR_TEST"},
		{"smart gpus --json | no-such-tool-for-test .", "needs no-such-tool-for-test"},
		{`smart gpus --json | jq '.[] | select(.x)'`, map[bool]string{true: "needs jq", false: ""}[lookFails("jq")]},
		{"smart bench x   # needs a GPU", map[bool]string{true: "needs a GPU (no nvidia-smi)", false: ""}[noGPU != nil]},
	} {
		if got := (example{command: tc.command}).skipReason(); got != tc.reason {
			t.Errorf("%s: skip reason %q, want %q", tc.command, got, tc.reason)
		}
	}
}

func lookFails(tool string) bool {
	_, err := exec.LookPath(tool)
	return err != nil
}

// TestSplitByFiles: --help examples that name the same path the clone lacks stay together and in
// order; one that names only the clone's files goes alone.
func TestSplitByFiles(t *testing.T) {
	help := source{name: "help", examples: []example{
		{where: "smart generate --help #1", command: "smart generate --count 4 --out stencils/", block: 1},
		{where: "smart show --help #1", command: "smart show data/stencils/j3d7pt.json", block: 2},
		{where: "smart bench --help #1", command: "smart bench --random 8 --out runs/a", block: 3},
		{where: "smart bench --help #2", command: "smart bench stencils/ --out runs/b", block: 3},
		{where: "smart calibrate --help #1", command: "smart calibrate --data data/m -o cal.json", block: 4},
		{where: "smart train --help #1", command: "smart train --data=runs/a -o m.model", block: 5},
	}}
	got := splitByFiles(help, []string{"data/stencils/j3d7pt.json", "data/m/rows.csv"})
	var names []string
	for _, src := range got {
		var wheres []string
		for _, ex := range src.examples {
			wheres = append(wheres, ex.where)
		}
		names = append(names, src.name+": "+strings.Join(wheres, ", "))
	}
	want := []string{
		"help/generate: smart generate --help #1, smart bench --help #1, smart bench --help #2, smart train --help #1",
		"help/show: smart show --help #1",
		"help/calibrate: smart calibrate --help #1",
	}
	if !slices.Equal(names, want) {
		t.Errorf("sources:\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}
