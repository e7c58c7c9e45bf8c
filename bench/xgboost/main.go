// Command xgboost compares smart's gradient boosting (models/gbdt) with XGBoost's command-line
// trainer (Debian package xgboost, binary /usr/bin/xgboost) on the same train/test split with
// matched hyper-parameters: histogram method with 255 bins, depth-wise trees of the same depth,
// the same learning rate, rounds, L2 lambda and minimum child hessian, no row or column
// subsampling, no early stopping, the same number of threads.
//
// The data is a smart data set (a runtime matrix: ln time per step; or, with -task select, the
// best-OC classes of a labelled data set) split by stencil (or configuration) into 80% train and
// 20% test, or a synthetic matrix (-synthetic ROWS: y = sum of sines and products of 20 uniform
// features plus noise, for throughput on more rows). The split is written as CSV (label first),
// XGBoost trains and predicts through its CLI, and both are scored on the test rows: MAPE of the
// time (runtime), accuracy (select), RMSE of the target (synthetic).
//
// Training time: smart's is Train's wall time, binning included; XGBoost's is what its own
// monitor reports for its training iterations (verbosity=3, UpdateOneIter: quantile sketch
// included, CSV parsing excluded). On a shared machine wall times follow the load, so CPU time
// (user + system) is reported too and is what rounds/s is computed from: smart's is the
// process's CPU time during Train; XGBoost's is that of a run of N rounds minus that of a run of
// one round, scaled by N/(N-1), which removes CSV parsing and the quantile sketch. Each tool runs
// -repeat times; the fastest run counts.
//
// Usage:
//
//	go run ./bench/xgboost -data DIR [-task runtime|select] [-rounds 200] [-depth 6] [-eta 0.1] [-threads 2]
//	go run ./bench/xgboost -synthetic 200000
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"smart/bench/internal/jsonout"
	"smart/models"
	"smart/models/gbdt"
	"smart/models/train"
)

type config struct {
	data, task, workdir, xgb string
	synthetic                int
	rounds, depth, threads   int
	eta, lambda, minChild    float64
	repeat                   int
	seed                     uint64
}

// Result is one tool's line of the comparison.
type Result struct {
	Tool       string  `json:"tool"`
	TrainSec   float64 `json:"train_seconds"` // wall time
	CPUSec     float64 `json:"train_cpu_seconds"`
	RoundsPerS float64 `json:"rounds_per_second"` // rounds per CPU second
	Metric     string  `json:"metric"`
	Value      float64 `json:"value"`
}

// Comparison is what the command prints.
type Comparison struct {
	Data      string   `json:"data"`
	TrainRows int      `json:"train_rows"`
	TestRows  int      `json:"test_rows"`
	Features  int      `json:"features"`
	Classes   int      `json:"classes,omitempty"`
	Params    string   `json:"params"`
	Results   []Result `json:"results"`
}

func main() {
	var c config
	flag.StringVar(&c.data, "data", "", "smart data set directory")
	flag.StringVar(&c.task, "task", "runtime", "runtime or select (with -data)")
	flag.IntVar(&c.synthetic, "synthetic", 0, "use a synthetic regression of this many rows instead of -data")
	flag.IntVar(&c.rounds, "rounds", 200, "boosting rounds")
	flag.IntVar(&c.depth, "depth", 6, "tree depth")
	flag.Float64Var(&c.eta, "eta", 0.1, "learning rate")
	flag.Float64Var(&c.lambda, "lambda", 1, "L2 regularisation")
	flag.Float64Var(&c.minChild, "min-child-weight", 1, "least hessian sum in a child")
	flag.IntVar(&c.threads, "threads", 2, "threads for both tools")
	flag.IntVar(&c.repeat, "repeat", 3, "runs per tool; the fastest counts")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the split and of the synthetic data")
	flag.StringVar(&c.workdir, "workdir", "", "where to write the CSV files and models (default: a temporary directory)")
	flag.StringVar(&c.xgb, "xgboost", "xgboost", "XGBoost command-line binary")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	// Go code, the garbage collector included, gets as many OS threads as XGBoost gets.
	runtime.GOMAXPROCS(c.threads)
	res, err := run(context.Background(), c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/xgboost:", err)
		os.Exit(1)
	}
	if *asJSON {
		jsonout.Print("bench/xgboost:", res)
		return
	}
	fmt.Printf("data: %s; %d train / %d test rows, %d features", res.Data, res.TrainRows, res.TestRows, res.Features)
	if res.Classes > 0 {
		fmt.Printf(", %d classes", res.Classes)
	}
	fmt.Printf("\nparams: %s\n", res.Params)
	fmt.Printf("%-14s %12s %12s %14s %10s\n", "tool", "train wall s", "train CPU s", "rounds/CPU s", res.Results[0].Metric)
	for _, r := range res.Results {
		fmt.Printf("%-14s %12.3f %12.3f %14.1f %10.4g\n", r.Tool, r.TrainSec, r.CPUSec, r.RoundsPerS, r.Value)
	}
}

func run(ctx context.Context, c config) (*Comparison, error) {
	if _, err := exec.LookPath(c.xgb); err != nil {
		return nil, fmt.Errorf("XGBoost's command-line trainer %q is not installed (apt-get install -y xgboost): %w", c.xgb, err)
	}
	tr, te, name, err := split(ctx, c)
	if err != nil {
		return nil, err
	}
	if c.workdir == "" {
		if c.workdir, err = os.MkdirTemp("", "xgb-bench"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(c.workdir)
	}
	cmp := &Comparison{Data: name, TrainRows: tr.Rows(), TestRows: te.Rows(), Features: len(tr.Features), Classes: tr.Classes,
		Params: fmt.Sprintf("rounds=%d depth=%d eta=%g lambda=%g min_child_weight=%g max_bin=255 threads=%d", c.rounds, c.depth, c.eta, c.lambda, c.minChild, c.threads)}
	ours, err := runGBDT(ctx, c, tr, te)
	if err != nil {
		return nil, err
	}
	theirs, err := runXGBoost(c, tr, te)
	if err != nil {
		return nil, err
	}
	cmp.Results = []Result{ours, theirs}
	return cmp, nil
}

// split loads the data and holds out 20% of its groups for testing.
func split(ctx context.Context, c config) (train_, test *models.Data, name string, err error) {
	var d *models.Data
	if c.synthetic > 0 {
		d, name = synthetic(c.synthetic, c.seed), fmt.Sprintf("synthetic regression, %d rows", c.synthetic)
	} else {
		if c.data == "" {
			return nil, nil, "", fmt.Errorf("give -data DIR or -synthetic ROWS")
		}
		task, err := models.ParseTask(c.task)
		if err != nil {
			return nil, nil, "", err
		}
		set, err := train.Load(ctx, []string{c.data}, train.Options{Task: task})
		if err != nil {
			return nil, nil, "", err
		}
		d, name = set.Data, fmt.Sprintf("%s (%s)", c.data, task)
		for _, r := range set.Refs {
			name += fmt.Sprintf(", %v", r.Sources)
		}
	}
	tr, te, err := models.SplitGroups(d, 0.2, c.seed)
	return tr, te, name, err
}

// synthetic is a regression on 20 uniform features: sines, a product and a step, plus noise.
func synthetic(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := &models.Data{Task: models.Runtime}
	for j := 0; j < 20; j++ {
		d.Features = append(d.Features, fmt.Sprintf("x%d", j))
	}
	for i := 0; i < n; i++ {
		x := make([]float64, 20)
		for j := range x {
			x[j] = rng.Float64()
		}
		y := math.Sin(6*x[0]) + 2*x[1]*x[2] + x[3]*x[3] + 0.5*math.Sin(9*x[4]*x[5])
		if x[6] > 0.5 {
			y += 0.7
		}
		d.X = append(d.X, x)
		d.Y = append(d.Y, y+0.1*rng.NormFloat64())
	}
	return d
}

func gbdtParams(c config) gbdt.Params {
	p := gbdt.DefaultParams()
	p.Rounds, p.LearningRate, p.Growth, p.MaxDepth, p.MaxLeaves = c.rounds, c.eta, "depthwise", c.depth, 1<<c.depth
	p.Lambda, p.MinChildWeight, p.MinDataInLeaf, p.EarlyStop = c.lambda, c.minChild, 1, 0
	p.MaxBins, p.Threads = 255, c.threads
	return p
}

func runGBDT(ctx context.Context, c config, tr, te *models.Data) (Result, error) {
	best, bestCPU := math.Inf(1), math.Inf(1)
	var m *gbdt.Model
	for r := 0; r < c.repeat; r++ {
		start, cpu0 := time.Now(), cpuSeconds()
		var err error
		if m, err = gbdt.Train(ctx, tr, nil, gbdtParams(c), nil); err != nil {
			return Result{}, err
		}
		best, bestCPU = min(best, time.Since(start).Seconds()), min(bestCPU, cpuSeconds()-cpu0)
	}
	res := Result{Tool: "smart gbdt", TrainSec: best, CPUSec: bestCPU, RoundsPerS: float64(c.rounds) / bestCPU}
	if te.Task == models.Select {
		p, err := m.PredictProbaBatch(te.X)
		if err != nil {
			return res, err
		}
		res.Metric, res.Value = accuracy(p, te.Y)
		return res, nil
	}
	p, err := m.PredictBatch(te.X)
	if err != nil {
		return res, err
	}
	res.Metric, res.Value = regressionScore(c, p, te.Y)
	return res, nil
}

func accuracy(p [][]float64, y []float64) (string, float64) {
	right := 0
	for i, pr := range p {
		best := 0
		for k, v := range pr {
			if v > pr[best] {
				best = k
			}
		}
		if best == int(y[i]) {
			right++
		}
	}
	return "accuracy", float64(right) / float64(len(y))
}

// regressionScore is the MAPE of exp(prediction) for smart data (targets are ln ms) and the RMSE
// for the synthetic data.
func regressionScore(c config, p, y []float64) (string, float64) {
	s := 0.0
	for i := range p {
		if c.synthetic > 0 {
			s += (p[i] - y[i]) * (p[i] - y[i])
		} else {
			s += math.Abs(math.Exp(p[i])-math.Exp(y[i])) / math.Exp(y[i])
		}
	}
	if c.synthetic > 0 {
		return "rmse", math.Sqrt(s / float64(len(y)))
	}
	return "mape %", 100 * s / float64(len(y))
}

func writeCSV(path string, d *models.Data) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, row := range d.X {
		w.WriteString(strconv.FormatFloat(d.Y[i], 'g', -1, 64))
		for _, v := range row {
			w.WriteByte(',')
			w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func runXGBoost(c config, tr, te *models.Data) (Result, error) {
	trainCSV, testCSV := filepath.Join(c.workdir, "train.csv"), filepath.Join(c.workdir, "test.csv")
	if err := writeCSV(trainCSV, tr); err != nil {
		return Result{}, err
	}
	if err := writeCSV(testCSV, te); err != nil {
		return Result{}, err
	}
	objective := "objective = reg:squarederror\n"
	if tr.Task == models.Select {
		objective = fmt.Sprintf("objective = multi:softprob\nnum_class = %d\n", tr.Classes)
	}
	conf := filepath.Join(c.workdir, "xgb.conf")
	text := fmt.Sprintf(`booster = gbtree
%stree_method = hist
max_bin = 255
grow_policy = depthwise
max_depth = %d
eta = %g
lambda = %g
alpha = 0
gamma = 0
min_child_weight = %g
subsample = 1
colsample_bytree = 1
nthread = %d
data = "%s?format=csv&label_column=0"
test:data = "%s?format=csv&label_column=0"
model_out = "%s"
`, objective, c.depth, c.eta, c.lambda, c.minChild, c.threads, trainCSV, testCSV, filepath.Join(c.workdir, "xgb.model"))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return Result{}, err
	}
	// XGBoost's own monitor (verbosity=3) reports the wall time of its training iterations; the
	// CPU time is that of N rounds minus that of one.
	xgb := func(rounds int) (wall, cpu float64, err error) {
		cmd := exec.Command(c.xgb, conf, fmt.Sprintf("num_round=%d", rounds), "verbosity=3")
		cmd.Dir = c.workdir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, 0, fmt.Errorf("xgboost: %v\n%s", err, lastLines(out, 20))
		}
		wall, err = monitorSeconds(out, "UpdateOneIter")
		return wall, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), err
	}
	best, cpuN, cpu1 := math.Inf(1), math.Inf(1), math.Inf(1)
	for r := 0; r < c.repeat; r++ {
		_, one, err := xgb(1)
		if err != nil {
			return Result{}, err
		}
		wall, cpu, err := xgb(c.rounds) // last, so that its model is the one scored
		if err != nil {
			return Result{}, err
		}
		best, cpuN, cpu1 = min(best, wall), min(cpuN, cpu), min(cpu1, one)
	}
	cpu := (cpuN - cpu1) * float64(c.rounds) / float64(c.rounds-1)
	res := Result{Tool: "xgboost " + xgbVersion(c.xgb), TrainSec: best, CPUSec: cpu, RoundsPerS: float64(c.rounds) / cpu}
	predFile := filepath.Join(c.workdir, "pred.txt")
	cmd := exec.Command(c.xgb, conf, "task=pred", "model_in="+filepath.Join(c.workdir, "xgb.model"),
		fmt.Sprintf("test:data=%s?format=csv&label_column=0", testCSV), "name_pred="+predFile)
	cmd.Dir = c.workdir
	if out, err := cmd.CombinedOutput(); err != nil {
		return res, fmt.Errorf("xgboost predict: %v\n%s", err, out)
	}
	values, err := readFloats(predFile)
	if err != nil {
		return res, err
	}
	if tr.Task == models.Select {
		k := tr.Classes
		if len(values) != k*te.Rows() {
			return res, fmt.Errorf("xgboost wrote %d probabilities for %d rows of %d classes", len(values), te.Rows(), k)
		}
		p := make([][]float64, te.Rows())
		for i := range p {
			p[i] = values[i*k : (i+1)*k]
		}
		res.Metric, res.Value = accuracy(p, te.Y)
		return res, nil
	}
	if len(values) != te.Rows() {
		return res, fmt.Errorf("xgboost wrote %d predictions for %d rows", len(values), te.Rows())
	}
	res.Metric, res.Value = regressionScore(c, values, te.Y)
	return res, nil
}

// monitorSeconds reads "NAME: 1.23s, N calls" from XGBoost's monitor output.
// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func monitorSeconds(out []byte, name string) (float64, error) {
	for _, line := range strings.Split(string(out), "\n") {
		_, rest, ok := strings.Cut(line, "] "+name+": ")
		if !ok {
			continue
		}
		sec, _, _ := strings.Cut(rest, "s,")
		v, err := strconv.ParseFloat(sec, 64)
		if err != nil {
			return 0, fmt.Errorf("xgboost monitor line %q: %w", line, err)
		}
		return v, nil
	}
	return 0, fmt.Errorf("xgboost printed no %s timing (is it older than 1.0?)", name)
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func readFloats(path string) ([]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, f := range strings.Fields(strings.ReplaceAll(string(data), ",", " ")) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", path, f)
		}
		out = append(out, v)
	}
	return out, nil
}

func xgbVersion(bin string) string {
	out, err := exec.Command(bin, "-V").CombinedOutput()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "XGBoost:"))
}
