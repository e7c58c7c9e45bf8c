package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"smart"
	"smart/dataset"
	"smart/dataset/cuda"
)

// Compiling the measured variants again, on a machine without a GPU: nvcc's ptxas reports what
// the CUDA driver does (registers and the stack frame, which is the local memory per thread),
// so rows measured before the harness reported them get the facts of the same source. The
// compiler may be another release than the GPU machine's: its name goes with every fact.

// compiler runs nvcc on one variant's source and reads what ptxas reports of its kernels.
type compiler struct {
	command []string // nvcc and its own flags, e.g. nvcc -ccbin clang-14
	arch    string   // e.g. sm_90
	version string   // the compiler's release, from nvcc --version
	dir     string   // scratch directory
}

func newCompiler(command, arch, dir string) (*compiler, error) {
	c := &compiler{command: strings.Fields(command), arch: arch, dir: dir}
	if len(c.command) == 0 {
		return nil, errors.New("-nvcc is empty")
	}
	out, err := exec.Command(c.command[0], "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %v: %s", c.command[0], err, out)
	}
	// "Cuda compilation tools, release 11.8, V11.8.89"
	_, release, ok := strings.Cut(string(out), "release ")
	if !ok {
		return nil, fmt.Errorf("%s --version names no release: %s", c.command[0], out)
	}
	c.version = "nvcc release " + strings.TrimSpace(strings.SplitN(release, "\n", 2)[0])
	return c, nil
}

var (
	frameLine = regexp.MustCompile(`(\d+) bytes stack frame`)
	regsLine  = regexp.MustCompile(`Used (\d+) registers`)
)

// parsePtxas reads the largest registers and stack frame over the entry functions ptxas
// reports (-Xptxas -v), as the harness takes the largest over a variant's launches.
func parsePtxas(out string) (smart.Compiled, error) {
	c := smart.Compiled{RegsPerThread: -1, LocalBytesPerThread: -1}
	for _, m := range regsLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		c.RegsPerThread = max(c.RegsPerThread, n)
	}
	for _, m := range frameLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		c.LocalBytesPerThread = max(c.LocalBytesPerThread, n)
	}
	if c.RegsPerThread < 0 || c.LocalBytesPerThread < 0 {
		return c, fmt.Errorf("ptxas reported no registers or stack frame: %.200s", out)
	}
	return c, nil
}

// compile generates the variant's source and compiles it as the GPU harness does (cubin, -O3).
func (c *compiler) compile(ctx context.Context, st *smart.Stencil, oc smart.Combination, set smart.Setting, n int) (smart.Compiled, error) {
	t, err := smart.DecodeTuning(st.Dims, oc, set)
	if err != nil {
		return smart.Compiled{}, err
	}
	k, err := cuda.Generate(st, t)
	if err != nil {
		return smart.Compiled{}, err
	}
	src, cubin := filepath.Join(c.dir, fmt.Sprintf("v%d.cu", n)), filepath.Join(c.dir, fmt.Sprintf("v%d.cubin", n))
	if err := os.WriteFile(src, []byte(k.File()), 0o644); err != nil {
		return smart.Compiled{}, err
	}
	defer os.Remove(src)
	defer os.Remove(cubin)
	// The harness's own flags (cuda.NVCC), so that the facts are of the kernels it runs.
	args := append(append(append([]string(nil), c.command[1:]...), cuda.NVCC(c.command[0], c.arch).Args...),
		"-Xptxas", "-v", "-o", cubin, src)
	out, err := exec.CommandContext(ctx, c.command[0], args...).CombinedOutput()
	if err != nil {
		return smart.Compiled{}, fmt.Errorf("nvcc: %v: %.300s", err, out)
	}
	return parsePtxas(string(out))
}

// compileMissing compiles the ok stencil variants of dirs whose rows carry no compiler facts
// and that f lacks (at most sample of them, spread evenly over the data sets' order, where sample
// is positive), workers at a time, appending each to the facts file at path as it comes, so that
// a stopped run resumes where it was.
func compileMissing(ctx context.Context, dirs []string, f *dataset.CompiledFacts, c *compiler, path string, sample, workers int, progress io.Writer) error {
	type job struct {
		key dataset.CompiledKey
		st  *smart.Stencil
		oc  smart.Combination
		set smart.Setting
	}
	var jobs []job
	seen := map[dataset.CompiledKey]bool{}
	for _, dir := range dirs {
		_, ms, err := dataset.ReadAll(dir)
		if err != nil {
			return err
		}
		stencils := map[string]*smart.Stencil{}
		for _, m := range ms {
			k := dataset.CompiledKey{StencilID: m.StencilID, OC: m.OC.String(), Setting: m.Setting.String(), Arch: c.arch}
			if !m.OK() || m.StencilID == "" || m.Compiled != nil || seen[k] {
				continue
			}
			if _, ok := f.Facts[k]; ok {
				continue
			}
			seen[k] = true
			st := stencils[m.StencilID]
			if st == nil {
				if st, err = dataset.ReadStencil(dir, m.StencilID); err != nil {
					return err
				}
				stencils[m.StencilID] = st
			}
			jobs = append(jobs, job{k, st, m.OC, m.Setting})
		}
	}
	if sample > 0 && sample < len(jobs) {
		spread := make([]job, sample)
		for i := range spread {
			spread[i] = jobs[i*len(jobs)/sample]
		}
		jobs = spread
	}
	fmt.Fprintf(progress, "compiling %d variants with %s for %s\n", len(jobs), c.version, c.arch)
	if len(jobs) == 0 {
		return nil
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	if st, err := out.Stat(); err == nil && st.Size() == 0 {
		if _, err := out.WriteString(strings.Join(dataset.CompiledHeader(), ",") + "\n"); err != nil {
			return err
		}
	}
	var (
		mu   sync.Mutex
		done int
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan int)
	w := csv.NewWriter(out)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				got, err := c.compile(ctx, j.st, j.oc, j.set, i)
				mu.Lock()
				done++
				if err != nil {
					errs = append(errs, fmt.Errorf("%s %s %s: %w", j.key.StencilID, j.key.OC, j.key.Setting, err))
				} else {
					w.Write([]string{j.key.StencilID, j.key.OC, j.key.Setting, j.key.Arch, c.version, strconv.Itoa(got.RegsPerThread), strconv.Itoa(got.LocalBytesPerThread)})
					w.Flush() // a whole line at a time: a stopped run loses at most the one being written
					if err := w.Error(); err != nil {
						errs = append(errs, fmt.Errorf("appending to %s: %w", path, err))
					}
					f.Facts[j.key], f.Compiler[j.key] = got, c.version
				}
				if done%100 == 0 || done == len(jobs) {
					fmt.Fprintf(progress, "compiled %d of %d\n", done, len(jobs))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d variants did not compile, the first: %w", len(errs), len(jobs), errs[0])
	}
	return ctx.Err()
}
