package cuda

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"smart"
)

// maxServers is how many harness processes (one per stencil, each holding four grids on the
// GPU) stay alive at once: units of a few stencils finish compiling in any order.
const maxServers = 3

// setupGrace is the time a harness gets, beyond the runner's Timeout, to create its context,
// fill the grid and compute the reference.
const setupGrace = 60 * time.Second

// server is a harness process serving one stencil (gpu_harness.h).
type server struct {
	id      string // the stencil's ID
	steps   int    // the steps of one run of the stencil: the harness times runs, rows hold times per step
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string // closed when the process has ended and been waited for
	stderr  *tail
	waitErr error // set before lines closes
	modules map[string]int
	copyBW  float64
}

// result is a harness's answer about one variant.
type result struct {
	status smart.Status
	err    string
	times  []float64 // ms per step
	runs   int
	cut    smart.Cut
	gone   bool // the process has ended or was killed
	// compiled is what the driver reported of the variant's kernels before its runs (COMPILED);
	// nil under the emulation, which has no such facts.
	compiled *smart.Compiled
}

// server returns the live harness of stencil st, starting one (and ending the least recently
// used beyond maxServers) when there is none.
func (r *Runner) server(ctx context.Context, harness string, st *smart.Stencil) (*server, error) {
	id := st.ID()
	r.mu.Lock()
	for i, s := range r.servers {
		if s.id == id {
			r.servers = append(append(r.servers[:i:i], r.servers[i+1:]...), s)
			r.mu.Unlock()
			return s, nil
		}
	}
	r.mu.Unlock()
	s, err := startServer(ctx, harness, st, r.Device, r.Seed, r.Timeout+setupGrace)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.starts++
	r.copyBW = s.copyBW
	r.servers = append(r.servers, s)
	var old []*server
	if n := len(r.servers) - maxServers; n > 0 {
		old = append(old, r.servers[:n]...)
		r.servers = append([]*server(nil), r.servers[n:]...)
	}
	r.mu.Unlock()
	for _, o := range old {
		o.close()
	}
	return s, nil
}

// drop ends s and forgets it: the next variant of its stencil gets a new process.
func (r *Runner) drop(s *server) {
	r.mu.Lock()
	for i, o := range r.servers {
		if o == s {
			r.servers = append(r.servers[:i:i], r.servers[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	s.kill()
}

// startServer starts the harness for st and waits until it has its reference result.
func startServer(ctx context.Context, harness string, st *smart.Stencil, device int, seed uint64, timeout time.Duration) (*server, error) {
	s := &server{id: st.ID(), steps: st.Steps, lines: make(chan string, 64), stderr: &tail{max: 4096}, modules: map[string]int{}}
	s.cmd = exec.Command(harness)
	// Eager loading: a kernel's first timed launch must not load its module.
	s.cmd.Env = append(os.Environ(), fmt.Sprintf("CUDA_VISIBLE_DEVICES=%d", device), "CUDA_MODULE_LOADING=EAGER")
	s.cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start benchmark harness: %w", err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		s.waitErr = s.cmd.Wait()
		close(s.lines)
	}()
	fail := func(format string, args ...any) (*server, error) {
		s.kill()
		return nil, fmt.Errorf("benchmark of stencil %s cannot start on the GPU: "+format, append([]any{st.ID()}, args...)...)
	}
	if err := s.send(caseLine(st, seed)); err != nil {
		return fail("%v", err)
	}
	for {
		line, state := s.next(ctx, timeout)
		switch state {
		case lineCancelled:
			s.kill()
			return nil, ctx.Err()
		case lineHung:
			return fail("no answer within %s", timeout)
		case lineGone:
			return fail("%v: %s", s.waitErr, firstLines(s.stderr.String(), 3))
		}
		word, rest, _ := strings.Cut(line, " ")
		switch word {
		case "COPYBW":
			s.copyBW, _ = strconv.ParseFloat(rest, 64)
		case "READY":
			return s, nil
		case "FAIL":
			return fail("%s", rest)
		}
	}
}

// caseLine describes st to the harness: numbers only.
func caseLine(st *smart.Stencil, seed uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CASE %d %d %d %d %d %d %d %s %d %d", st.Dtype.Size(), st.Dims, st.Grid[0], st.Grid[1], st.Grid[2],
		st.Order(), st.Steps, hexFloat(Tolerance(st)), seed, len(st.Points))
	for _, p := range st.Points {
		fmt.Fprintf(&b, " %d %d %d %s", p.Off[0], p.Off[1], p.Off[2], hexFloat(p.Coef))
	}
	return b.String()
}

func (s *server) send(line string) error {
	_, err := io.WriteString(s.stdin, line+"\n")
	return err
}

// States of a wait for the harness's next line.
const (
	lineOK = iota
	lineGone
	lineHung
	lineCancelled
)

// next waits for the harness's next line at most timeout.
func (s *server) next(ctx context.Context, timeout time.Duration) (string, int) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-s.lines:
		if !ok {
			return "", lineGone
		}
		return line, lineOK
	case <-t.C:
		return "", lineHung
	case <-ctx.Done():
		return "", lineCancelled
	}
}

// load makes the harness load a module (once) and returns its index.
func (s *server) load(ctx context.Context, path string, timeout time.Duration) (int, error) {
	if k, ok := s.modules[path]; ok {
		return k, nil
	}
	if err := s.send("LOAD " + path); err != nil {
		return 0, fmt.Errorf("loading module %s: the harness is gone: %w", filepath.Base(path), err)
	}
	line, state := s.next(ctx, timeout)
	switch state {
	case lineCancelled:
		return 0, ctx.Err()
	case lineHung:
		return 0, fmt.Errorf("loading module %s: no answer within %s", filepath.Base(path), timeout)
	case lineGone:
		return 0, fmt.Errorf("loading module %s: the harness died: %v: %s", filepath.Base(path), s.waitErr, firstLines(s.stderr.String(), 3))
	}
	word, rest, _ := strings.Cut(line, " ")
	switch word {
	case "LOADED":
		k, err := strconv.Atoi(rest)
		if err != nil {
			return 0, fmt.Errorf("loading module %s: the harness answered %q", filepath.Base(path), line)
		}
		s.modules[path] = k
		return k, nil
	case "LOADFAIL":
		return 0, fmt.Errorf("loading module %s: %s", filepath.Base(path), rest)
	}
	return 0, fmt.Errorf("loading module %s: the harness answered %q", filepath.Base(path), line)
}

// run sends a RUN command and reads the variant's result. A crash or a hang is a result (the
// process is then gone), with the compiler's facts if the harness reported them before; the
// error is for a cancelled context or a harness that does not follow its protocol.
func (s *server) run(ctx context.Context, command string, timeout time.Duration) (result, error) {
	tag, _, _ := strings.Cut(strings.TrimPrefix(command, "RUN "), " ")
	if err := s.send(command); err != nil {
		return result{status: smart.StatusLaunchError, err: fmt.Sprintf("benchmark process is gone: %v: %s", err, firstLines(s.stderr.String(), 3)), gone: true}, nil
	}
	var compiled *smart.Compiled
	for {
		line, state := s.next(ctx, timeout)
		switch state {
		case lineCancelled:
			return result{}, ctx.Err()
		case lineHung:
			s.kill()
			return result{status: smart.StatusTimeout, gone: true, compiled: compiled,
				err: fmt.Sprintf("a run gave no sign for %s: killed (a hang, e.g. a barrier in divergent code)", timeout)}, nil
		case lineGone:
			return result{status: smart.StatusLaunchError, gone: true, compiled: compiled,
				err: fmt.Sprintf("benchmark process died: %v: %s", s.waitErr, firstLines(s.stderr.String(), 3))}, nil
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && (f[0] == "BEGIN" || f[0] == "RAN") && f[1] == tag:
			continue
		case len(f) == 4 && f[0] == "COMPILED" && f[1] == tag && compiled == nil:
			if compiled = parseCompiled(f[2], f[3]); compiled != nil {
				continue
			}
		case len(f) >= 3 && f[0] == "RESULT" && f[1] == tag:
			res := parseRunResult(f[2], f[3:], strings.Join(f[3:], " "), s.steps)
			res.compiled = compiled
			return res, nil
		}
		s.kill()
		return result{}, fmt.Errorf("the benchmark harness answered %q to %.60s...", line, command)
	}
}

// parseCompiled reads the counts of a COMPILED line; nil if they are not counts.
func parseCompiled(regs, local string) *smart.Compiled {
	r, err1 := strconv.Atoi(regs)
	l, err2 := strconv.Atoi(local)
	if err1 != nil || err2 != nil || r < 0 || l < 0 {
		return nil
	}
	return &smart.Compiled{RegsPerThread: r, LocalBytesPerThread: l}
}

// parseRunResult reads the words after "RESULT <tag>" into times per step: the harness reports an
// ok or slow variant's time for a whole run of steps, a stopped one's for its first launch and
// the steps that launch fuses.
func parseRunResult(status string, f []string, rest string, steps int) result {
	nums := func(from int) []float64 {
		var v []float64
		for _, w := range f[min(from, len(f)):] {
			x, err := strconv.ParseFloat(w, 64)
			if err != nil || !(x > 0) {
				return nil
			}
			v = append(v, x)
		}
		return v
	}
	perStep := func(ts []float64) []float64 {
		for i := range ts {
			ts[i] /= float64(steps)
		}
		return ts
	}
	bad := result{status: smart.StatusLaunchError, err: "the harness gave no usable time: " + status + " " + rest}
	if steps < 1 {
		bad.err = fmt.Sprintf("a run of %d steps has no time per step", steps)
		return bad
	}
	switch status {
	case "ok":
		if len(f) < 3 {
			return bad
		}
		runs, err := strconv.Atoi(f[1])
		ts := nums(2)
		if err != nil || ts == nil {
			return bad
		}
		return result{status: smart.StatusOK, times: perStep(ts), runs: runs}
	case "slow":
		ts := nums(1)
		if len(ts) != 1 {
			return bad
		}
		return result{status: smart.StatusOK, times: perStep(ts), runs: 1, cut: smart.CutSlow}
	case "stopped":
		ts := nums(0)
		if len(ts) != 2 {
			return bad
		}
		// The time of the first launch, over the steps it fuses.
		return result{status: smart.StatusOK, times: []float64{ts[0] / ts[1]}, runs: 1, cut: smart.CutStopped}
	case "wrong":
		err := fmt.Sprintf("max relative error %s, %s unwritten points", at(f, 0), at(f, 1))
		if len(f) > 2 {
			err += "; " + strings.Join(f[2:], " ")
		}
		return result{status: smart.StatusWrongResult, err: err}
	case "overflow":
		// The reference or its magnitude is not finite: the variant cannot be checked, and the
		// kernel is not to blame.
		return result{status: smart.StatusInvalid, err: rest}
	case "lost":
		return result{status: smart.StatusLaunchError, err: rest, gone: true}
	}
	return result{status: smart.StatusLaunchError, err: rest}
}

func at(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return "?"
}

// num formats a threshold for the harness.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 9, 64) }

func (s *server) kill() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
}

// close ends the harness at the end of its input, or kills it when it does not end soon.
func (s *server) close() {
	s.stdin.Close()
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				return
			}
		case <-t.C:
			s.kill()
			for range s.lines {
			}
			return
		}
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
