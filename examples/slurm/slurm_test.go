// Package slurm tests the Slurm job-array template (bench-array.sbatch, merge.sbatch, submit.sh)
// on a real single-node Slurm started for the test (testdata/local-slurm.sh).
package slurm

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"smart/dataset"
)

// TestBenchArray submits a 4-shard smart bench of the analytic model through submit.sh and
// checks that the merged data set holds the rows of the same bench run as one process, row for
// row. Shard 3's smart is killed (SIGKILL) mid-run; the task requeues itself, resumes, and the
// merge still follows.
func TestBenchArray(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local Slurm and builds the smart binary")
	}
	// strace kills smart at a write to its rows, so the kill lands mid-run whatever the
	// machine's speed.
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed (apt-get install strace; .ci/run does): it kills a task's smart mid-run")
	}
	if b, err := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here (%v: %s): it kills a task's smart mid-run", err, bytes.TrimSpace(b))
	}
	dir := t.TempDir() // removed after the cluster stops, its jobs with it
	env, ctld := startSlurm(t)
	bin := filepath.Join(dir, "smart")
	if b, err := exec.Command("go", "build", "-o", bin, "smart/cmd/smart").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	// A bound on the jobs, well beyond the 15-30 s they take, so that a stuck one fails the
	// test with the logs instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// --batch 1: one row a write, so that a kill at a write leaves rows to resume from.
	args := []string{"--backend", "sim", "--random", "8", "--dims", "2", "--samples", "3", "--batch", "1"}
	one := filepath.Join(dir, "one")
	if b, err := exec.CommandContext(ctx, bin, append([]string{"bench", "--out", one}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("smart bench as one process: %v\n%s", err, b)
	}
	meta, oneRows, err := dataset.ReadAll(one)
	if err != nil {
		t.Fatal(err)
	}
	const shards, killed = 4, 3
	inKilled := 0
	for _, m := range oneRows {
		if meta.Plan.InShard(m.StencilID, &dataset.Shard{I: killed, N: shards}) {
			inKilled++
		}
	}

	// SMART for the tasks: smart itself, but in the first run of task 3 smart gets SIGKILL at
	// a write to rows.csv, and rows.csv is copied as the kill left it. strace counts writes per
	// thread: the kill comes at some thread's 5th, after 4 rows or more, and before the last
	// while smart writes from fewer than inKilled/4 threads (it writes most rows from one).
	const killAt = 5
	if inKilled < 10*killAt {
		t.Fatalf("shard %d/%d holds %d rows: too few to kill it mid-run", killed, shards, inKilled)
	}
	out := filepath.Join(dir, "array", "ds")
	shardRows := fmt.Sprintf("%s-%d/%s", out, killed, dataset.RowsFile)
	atKill := filepath.Join(dir, "rows-at-kill.csv")
	wrapper := filepath.Join(dir, "smart-killed-once")
	script := fmt.Sprintf(`#!/usr/bin/env bash
if [ "$SLURM_ARRAY_TASK_ID" = %d ] && [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then
  status=0
  strace -f -qq -o /dev/null -P %q -e trace=write -e inject=write:signal=KILL:when=%d %q "$@" || status=$?
  cp %q %q
  exit $status
fi
exec %q "$@"
`, killed, shardRows, killAt, bin, shardRows, atKill, bin)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	submit := exec.CommandContext(ctx, "bash", append([]string{mustAbs(t, "submit.sh"), strconv.Itoa(shards), out}, args...)...)
	submit.Dir = filepath.Dir(out) // the tasks' logs
	submit.Env = append(env, "SMART="+wrapper)
	b, err := submit.CombinedOutput()
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, b)
	}
	ids := regexp.MustCompile(`^bench array (\d+) \(\d+ tasks\), merge (\d+) into `).FindSubmatch(b)
	if ids == nil {
		t.Fatalf("submit.sh printed %q; want the array's and the merge's job IDs", b)
	}
	array, merge := string(ids[1]), string(ids[2])
	logs := func() string { return jobLogs(filepath.Dir(out)) + tail(ctld, 40) }

	// Wait for the merge. Slurm holds a requeued job back for two minutes: let task 3 start
	// again sooner, once its first run has ended (it is PENDING, no longer COMPLETING) and in a
	// later second than the end, or slurmd refuses the new run's credential as revoked with the
	// old one (Slurm compares their times in seconds).
	task := fmt.Sprintf("%s_%d", array, killed)
	released := false
	for {
		if ctx.Err() != nil {
			t.Fatalf("the merge did not complete in time:\n%s", logs())
		}
		m := job(t, env, merge)
		if m["JobState"] == "COMPLETED" {
			break
		}
		// CONFIGURING and COMPLETING are the moments between: a job on its way in or out.
		if !slices.Contains([]string{"PENDING", "CONFIGURING", "RUNNING", "COMPLETING"}, m["JobState"]) || m["Reason"] == "DependencyNeverSatisfied" {
			t.Fatalf("merge job %s is %s (%s):\n%s", merge, m["JobState"], m["Reason"], logs())
		}
		if k := job(t, env, task); !released && k["JobState"] == "PENDING" && k["Restarts"] == "1" {
			// It may have started meanwhile: then there is nothing to release.
			update := exec.Command("scontrol", "update", "JobId="+task, "StartTime=now+2")
			update.Env = env
			if b, err := update.CombinedOutput(); err != nil {
				t.Logf("releasing task %s: %v: %s", task, err, b)
			}
			released = true
		}
		time.Sleep(200 * time.Millisecond)
	}
	if k := job(t, env, task); k["Restarts"] != "1" || k["JobState"] != "COMPLETED" {
		t.Errorf("task %s: %s after %s restarts; want COMPLETED after 1 (requeued once)", task, k["JobState"], k["Restarts"])
	}

	// The kill: mid-run, and the resumed task kept what it had written.
	before, err := os.ReadFile(atKill)
	if err != nil {
		t.Fatalf("task %s was not killed: %v\n%s", task, err, logs())
	}
	after, err := os.ReadFile(shardRows)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(before, []byte("\n")) - 1; n < killAt-1 || n >= inKilled {
		t.Errorf("shard %d held %d rows when smart was killed; want %d to %d", killed, n, killAt-1, inKilled-1)
	} else {
		t.Logf("shard %d: smart killed after %d of its %d rows, resumed after a requeue", killed, n, inKilled)
	}
	if !bytes.HasPrefix(after, before) {
		t.Errorf("shard %d's rows.csv after the resume does not begin with the rows written before the kill", killed)
	}

	// Every shard holds each of its variants once; the merge holds the one process's rows.
	total := 0
	for i := 1; i <= shards; i++ {
		_, rows, err := dataset.ReadAll(fmt.Sprintf("%s-%d", out, i))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range rows {
			if k := dataset.Key(m); seen[k] {
				t.Errorf("shard %d holds %s twice", i, k)
			} else {
				seen[k] = true
			}
		}
		total += len(rows)
	}
	if total != len(oneRows) {
		t.Errorf("the shards hold %d rows; one process wrote %d", total, len(oneRows))
	}
	// The merge describes the one process's run: only when it was made and from what differ.
	merged, err := dataset.ReadMeta(out)
	if err != nil {
		t.Fatal(err)
	}
	merged.Created, merged.MergedFrom = meta.Created, nil
	if !reflect.DeepEqual(merged, meta) {
		t.Errorf("merged meta.json %+v; one process's %+v", merged, meta)
	}
	wantHead, want := rowLines(t, one)
	gotHead, got := rowLines(t, out)
	if gotHead != wantHead {
		t.Errorf("merged rows.csv header %q; one process wrote %q", gotHead, wantHead)
	}
	if !slices.Equal(got, want) {
		t.Errorf("merged rows differ from one process's: %d rows against %d, first difference %s", len(got), len(want), firstDiff(got, want))
	}
	if a, b := dirFiles(t, filepath.Join(one, dataset.StencilsDir)), dirFiles(t, filepath.Join(out, dataset.StencilsDir)); !slices.Equal(a, b) {
		t.Errorf("merged stencils/ differs from one process's")
	}
}

// startSlurm starts a single-node Slurm for the test and returns the environment its clients
// need and slurmctld's log; it skips the test where Slurm cannot run here.
func startSlurm(t *testing.T) (env []string, ctldLog string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a local Slurm needs root (slurmd runs jobs as their user)")
	}
	for _, cmd := range []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo", "scancel", "squeue"} {
		if _, err := exec.LookPath(cmd); err != nil {
			t.Skipf("%s is not installed: apt-get install slurm-wlm munge (.ci/run does) to run this test", cmd)
		}
	}
	// Short: munged's socket path must fit a Unix socket's 108 bytes.
	dir, err := os.MkdirTemp("", "slurm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	script := mustAbs(t, filepath.Join("testdata", "local-slurm.sh"))
	ports := freePorts(t, 2)
	start := exec.Command("bash", script, "start", dir, strconv.Itoa(ports[0]), strconv.Itoa(ports[1]))
	start.Env = slurmEnv(dir)
	if b, err := start.CombinedOutput(); err != nil {
		t.Skipf("a local Slurm could not start here (%v):\n%s", err, b)
	}
	t.Cleanup(func() {
		stop := exec.Command("bash", script, "stop", dir)
		stop.Env = slurmEnv(dir)
		if b, err := stop.CombinedOutput(); err != nil {
			t.Errorf("stopping the local Slurm: %v\n%s", err, b)
		}
	})
	return slurmEnv(dir), filepath.Join(dir, "log", "slurmctld.log")
}

// slurmEnv is this process's environment for the local Slurm in dir: its configuration, and none
// of the Slurm variables of a job this test might run in.
func slurmEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") && !strings.HasPrefix(kv, "SBATCH_") {
			env = append(env, kv)
		}
	}
	return append(env, "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))
}

// freePorts returns n TCP ports free on localhost now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close() // held until all are chosen, so that none repeats
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// job returns the fields of scontrol show job for id (a job, or an array task as ID_I).
func job(t *testing.T, env []string, id string) map[string]string {
	t.Helper()
	fields := map[string]string{}
	for _, f := range strings.Fields(run(t, env, "scontrol", "show", "job", "-o", id)) {
		if k, v, ok := strings.Cut(f, "="); ok {
			fields[k] = v
		}
	}
	return fields
}

// run runs a Slurm client and returns its output.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
	return string(b)
}

// jobLogs is the text of the jobs' output files in dir, for failure messages.
func jobLogs(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.out"))
	var s strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		fmt.Fprintf(&s, "--- %s\n%s", filepath.Base(f), b)
	}
	return s.String()
}

// tail is the last n lines of a file, for failure messages.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(b), "\n")
	return "--- " + path + "\n" + strings.Join(lines[max(len(lines)-n, 0):], "")
}

// rowLines returns the header of a data set's rows.csv and its rows, sorted: shards and one
// process write the same rows in different orders.
func rowLines(t *testing.T, dir string) (string, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, dataset.RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	rows := slices.Clone(lines[1:])
	slices.Sort(rows)
	return lines[0], rows
}

// firstDiff describes the first row where got and want differ.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("%q against %q", got[i], want[i])
		}
	}
	return "in the rows one has beyond the other"
}

// dirFiles returns each file of dir as its name and content.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, e.Name()+"\n"+string(b))
	}
	return files
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
