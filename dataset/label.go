package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"smart"
	"smart/internal/atomicfile"
	"smart/internal/english"
	"smart/internal/jsonerr"
)

// LabelsFormat is the version tag of labels.json.
const LabelsFormat = "smart-labels/1"

// DefaultClasses is the number of OC classes StencilMART predicts (section V-A).
const DefaultClasses = 5

// ErrTooFewToMerge is wrapped by the error of labels that would merge OCs over fewer than
// MinMergeInstances instances.
var ErrTooFewToMerge = errors.New("a correlation of fewer is undefined or ±1 whatever the times; measure more stencils, or label it with another data set's classes")

// MinMergeInstances is the fewest instances (a stencil on a GPU) whose times ComputeLabels
// correlates to merge OCs: over two, every correlation is +1 or -1; over one, none is defined.
const MinMergeInstances = 3

// Labels are the best OC of every stencil on every GPU of a data set, and the OCs merged into
// classes whose times correlate (StencilMART section III-C): a classifier predicts the class,
// represented by the OC that wins most often within it.
type Labels struct {
	Format  string         `json:"format"`
	Created time.Time      `json:"created"`
	Sources []smart.Source `json:"sources"` // where the times labelled come from
	Devices []Device       `json:"devices"`
	Rows    int            `json:"rows"` // rows read

	// OCs are the OCs with at least one ok time, the rows and columns of PCC.
	OCs []smart.Combination `json:"ocs"`
	// PCC is the Pearson correlation of two OCs' best times over the instances (stencil and
	// GPU) where both ran; null where fewer than two instances or a constant series leave it
	// undefined.
	PCC [][]*float64 `json:"pcc"`
	// Relative is true when each instance's times were divided by its best time before
	// correlating (LabelOptions.Relative).
	Relative  bool        `json:"relative"`
	Requested int         `json:"classes_requested"`
	Merges    []MergeStep `json:"merges"` // in the order they were made
	Classes   []Class     `json:"classes"`
	Instances []Instance  `json:"instances"`
	// Unlabelled counts instances (stencil and GPU) measured under every OC but with no ok time.
	Unlabelled int `json:"unlabelled"`
	// Incomplete counts the instances left out because they were measured under only some of
	// the OCs (the data set's plan's, or where it has none, every OC its rows of the GPU
	// cover): the best of the OCs measured may lose to one not measured yet. Labels written
	// before it was counted read as 0.
	Incomplete int `json:"incomplete"`
}

// MergeStep is one agglomerative merge: the two most correlated classes and their similarity,
// the mean PCC over pairs of their members (undefined pairs count 0). The PCC is taken with its
// sign: StencilMART reads |PCC| as the strength of a correlation, but two OCs whose times move
// in opposite directions do not have a similar effect, so they are merged last.
type MergeStep struct {
	A          []smart.Combination `json:"a"`
	B          []smart.Combination `json:"b"`
	Similarity float64             `json:"similarity"`
}

// Class is a group of OCs predicted as one.
type Class struct {
	Label   smart.Combination   `json:"label"`   // the member that is best for the most instances
	Members []smart.Combination `json:"members"` // in bit order
	Wins    int                 `json:"wins"`    // instances whose best OC is a member
}

// Instance is one stencil on one GPU with its best OC and its class.
type Instance struct {
	StencilID string            `json:"stencil_id"`
	GPU       string            `json:"gpu"`
	Best      smart.Combination `json:"best"`
	BestMs    float64           `json:"best_ms"`
	Class     smart.Combination `json:"class"`
}

// ClassOf returns the label of oc's class, or false when oc never ran.
func (l *Labels) ClassOf(oc smart.Combination) (smart.Combination, bool) {
	for _, c := range l.Classes {
		if slices.Contains(c.Members, oc) {
			return c.Label, true
		}
	}
	return 0, false
}

// LabelOptions say how OCs are merged into classes.
type LabelOptions struct {
	// Classes is the number of classes wanted (fewer when fewer OCs ran); 0 means
	// DefaultClasses.
	Classes int
	// Relative divides each instance's times by its best OC's time before correlating.
	// StencilMART correlates the times themselves, but those grow with the stencil for every
	// OC alike, so that all OCs correlate strongly; relative times correlate when two OCs gain
	// or lose against the best together, which is what merging looks for.
	Relative bool
	// Given, when set, are the classes to label with instead of merging (another data set's:
	// a few measured stencils labelled with the classes of many simulated ones, so that one
	// classifier learns from both); their labels stay, their wins are counted on this data.
	// Classes is then ignored, and an OC that ran here but is in none of them is an error.
	Given []Class
	// Partial labels the stencils measured under only some of the OCs too, by the best of
	// those measured (still counted in Labels.Incomplete): for data whose missing OCs are
	// known and few, e.g. runs cut short before their last OC.
	Partial bool
}

// LabelWith computes the labels of the data set in dir with opt (ComputeLabels) and writes them
// to dir/labels.json atomically; stopped by ctx, it writes nothing.
func LabelWith(ctx context.Context, dir string, opt LabelOptions) (*Labels, error) {
	l, err := ComputeLabels(ctx, dir, opt)
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", LabelsFile, err)
	}
	return l, atomicfile.Write(filepath.Join(dir, LabelsFile), append(data, '\n'))
}

// ReadLabels reads dir/labels.json.
func ReadLabels(dir string) (*Labels, error) {
	path := filepath.Join(dir, LabelsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil {
			return nil, fmt.Errorf("no labelled data set at %s: %w", dir, serr)
		}
		return nil, fmt.Errorf("%s has no %s; label the data set first", dir, LabelsFile)
	}
	if err != nil {
		return nil, err
	}
	var l Labels
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, jsonerr.Describe(err))
	}
	if l.Format != LabelsFormat {
		return nil, fmt.Errorf("%s: field \"format\" is %q; this version of smart reads %q", path, l.Format, LabelsFormat)
	}
	return &l, nil
}

// ComputeLabels labels the data set in dir without writing anything. Once ctx is done it stops
// reading, with an error that wraps ctx.Err().
func ComputeLabels(ctx context.Context, dir string, opt LabelOptions) (*Labels, error) {
	classes := opt.Classes
	if classes == 0 {
		classes = DefaultClasses
	}
	if classes < 1 {
		return nil, fmt.Errorf("%d classes requested; ask for at least 1", classes)
	}
	l := &Labels{Format: LabelsFormat, Created: time.Now().UTC().Truncate(time.Second), Requested: classes, Relative: opt.Relative}
	planned, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	all, covered := bestTimes{}, newCoverage(planned)
	meta, _, err := ScanContext(ctx, dir, func(m smart.Measurement) error {
		l.Rows++
		all.add(m)
		covered.add(m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.Sources, l.Devices = meta.Sources, meta.Devices
	if err := oneSource(covered); err != nil {
		return nil, fmt.Errorf("labelling %s: %w", dir, err)
	}
	complete, incomplete := covered.complete()
	for _, in := range incomplete {
		l.Incomplete += in.Stencils
	}
	best := bestTimes{}
	for in, times := range all {
		if complete[in] || opt.Partial {
			best[in] = times
		}
	}
	if len(best) == 0 {
		if l.Incomplete > 0 {
			return nil, fmt.Errorf("%s has no stencil measured under every OC with an ok time to label (%d measured under only some)", dir, l.Incomplete)
		}
		return nil, fmt.Errorf("%s has no stencil rows with an ok time to label", dir)
	}
	considered := len(complete)
	if opt.Partial {
		considered = len(covered.ocs)
	}
	l.Unlabelled = considered - len(best)
	instances := best.instances()

	wins := map[smart.Combination]int{}
	for _, in := range instances {
		oc, _ := best.best(in)
		wins[oc]++
		for c := range best[in] {
			if !slices.Contains(l.OCs, c) {
				l.OCs = append(l.OCs, c)
			}
		}
	}
	slices.Sort(l.OCs)

	// Pairwise PCC over the instances where both OCs ran.
	n := len(l.OCs)
	sim := make([][]float64, n)
	l.PCC = make([][]*float64, n)
	for i := range n {
		sim[i] = make([]float64, n)
		l.PCC[i] = make([]*float64, n)
	}
	for i := range n {
		for j := i; j < n; j++ {
			var xs, ys []float64
			for _, in := range instances {
				x, okx := best[in][l.OCs[i]]
				y, oky := best[in][l.OCs[j]]
				if !okx || !oky {
					continue
				}
				if opt.Relative {
					_, b := best.best(in)
					x, y = x/b, y/b
				}
				xs, ys = append(xs, x), append(ys, y)
			}
			if r, ok := pearson(xs, ys); ok {
				l.PCC[i][j], l.PCC[j][i] = &r, &r
				sim[i][j], sim[j][i] = r, r
			}
		}
	}

	// Agglomerative merging of the most similar pair, average linkage; ties go to the pair that
	// comes first in OC order, so the result does not depend on map order.
	var groups [][]int
	for i := range n {
		groups = append(groups, []int{i})
	}
	if len(opt.Given) > 0 {
		if _, err := l.labelWith(opt.Given, instances, best, wins); err != nil {
			return nil, fmt.Errorf("labelling %s: %w", dir, err)
		}
		return l, nil
	}
	if len(groups) > classes && len(instances) < MinMergeInstances {
		return nil, fmt.Errorf("merging %d OCs into %d classes needs their times' correlation over at least %d instances (a stencil on a GPU), and %s has %s: %w",
			len(groups), classes, MinMergeInstances, dir, english.Plural(len(instances), "instance"), ErrTooFewToMerge)
	}
	for len(groups) > classes {
		bi, bj, bs := 0, 1, math.Inf(-1)
		for i := range groups {
			for j := i + 1; j < len(groups); j++ {
				s := 0.0
				for _, a := range groups[i] {
					for _, b := range groups[j] {
						s += sim[a][b]
					}
				}
				s /= float64(len(groups[i]) * len(groups[j]))
				if s > bs {
					bi, bj, bs = i, j, s
				}
			}
		}
		l.Merges = append(l.Merges, MergeStep{A: l.ocsOf(groups[bi]), B: l.ocsOf(groups[bj]), Similarity: bs})
		groups[bi] = append(groups[bi], groups[bj]...)
		slices.Sort(groups[bi])
		groups = slices.Delete(groups, bj, bj+1)
	}
	for _, g := range groups {
		c := Class{Members: l.ocsOf(g)}
		c.Label = c.Members[0]
		for _, oc := range c.Members {
			c.Wins += wins[oc]
			if wins[oc] > wins[c.Label] {
				c.Label = oc
			}
		}
		l.Classes = append(l.Classes, c)
	}
	for _, in := range instances {
		oc, t := best.best(in)
		class, _ := l.ClassOf(oc)
		l.Instances = append(l.Instances, Instance{StencilID: in.stencil, GPU: in.gpu, Best: oc, BestMs: t, Class: class})
	}
	return l, nil
}

// oneSource refuses stencils timed on one GPU by several sources (measured and simulated, in a
// data set merged with AllowMixed): a label names the stencil and GPU alone, so one source's
// best OC would stand for the other's, and a reader of the labels would take the times of both
// for one.
func oneSource(c *coverage) error {
	type stencilGPU struct{ stencil, gpu string }
	first := map[stencilGPU]smart.Source{}
	for _, in := range slices.SortedFunc(maps.Keys(c.ocs), compareInstances) {
		k := stencilGPU{in.stencil, in.gpu}
		if src, ok := first[k]; ok {
			return fmt.Errorf("stencil %s on %s has rows of two sources, %s and %s; a label names the stencil and GPU, not the source: label the rows of each source in a data set of its own", in.stencil, in.gpu, src, in.source)
		}
		first[k] = in.source
	}
	return nil
}

// labelWith labels the instances with the given classes.
func (l *Labels) labelWith(given []Class, instances []instance, best bestTimes, wins map[smart.Combination]int) (*Labels, error) {
	l.Requested = len(given)
	for _, c := range given {
		c.Members = slices.Clone(c.Members)
		c.Wins = 0
		for _, oc := range c.Members {
			c.Wins += wins[oc]
		}
		l.Classes = append(l.Classes, c)
	}
	for _, oc := range l.OCs {
		if _, ok := l.ClassOf(oc); !ok {
			return nil, fmt.Errorf("OC %s ran but is in none of the classes given; take the classes of a data set where it ran too", oc)
		}
	}
	for _, in := range instances {
		oc, t := best.best(in)
		class, _ := l.ClassOf(oc)
		l.Instances = append(l.Instances, Instance{StencilID: in.stencil, GPU: in.gpu, Best: oc, BestMs: t, Class: class})
	}
	return l, nil
}

func (l *Labels) ocsOf(idx []int) []smart.Combination {
	out := make([]smart.Combination, len(idx))
	for i, k := range idx {
		out[i] = l.OCs[k]
	}
	slices.Sort(out)
	return out
}

// pearson is the Pearson correlation coefficient of xs and ys, false where it is undefined.
func pearson(xs, ys []float64) (float64, bool) {
	if len(xs) < 2 {
		return 0, false
	}
	r := stat.Correlation(xs, ys, nil)
	return r, !math.IsNaN(r)
}
