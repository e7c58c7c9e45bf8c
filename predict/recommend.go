package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"smart"
	"smart/dataset"
	"smart/internal/english"
)

// Workload is what a recommendation prices: a number of time steps, or a number of hours of
// renting (then each GPU is scored by the steps it does in that time). Zero steps and hours
// mean the stencil's own steps.
type Workload struct {
	Steps int64   `json:"steps,omitempty"`
	Hours float64 `json:"hours,omitempty"`
}

// Recommendation ranks GPUs for one stencil by predicted time and by cost (StencilMART V-D: to
// rent or not to rent a cloud GPU).
type Recommendation struct {
	File     string      `json:"file"`
	Stencil  StencilInfo `json:"stencil"`
	Workload Workload    `json:"workload"`
	// GPUs are every GPU considered, fastest first; those without a prediction last.
	GPUs     []Ranked `json:"gpus"`
	Fastest  string   `json:"fastest"`
	Cheapest string   `json:"most_cost_efficient,omitempty"` // "" when no GPU considered has a price
	Have     *Versus  `json:"have,omitempty"`
	// Overlapping lists the GPUs whose intervals overlap the fastest's: the models cannot say
	// which of them is faster at that level.
	Overlapping []string `json:"overlapping_fastest,omitempty"`
	// Measured are the fastest variants of this very stencil measured on each GPU, as in
	// Prediction.Measured.
	Measured []dataset.Fastest `json:"measured,omitempty"`
	Models   []ModelInfo       `json:"models"`
	Warnings []string          `json:"warnings,omitempty"`
}

// Ranked is one GPU of a recommendation.
type Ranked struct {
	GPUTime
	// Seconds is the predicted wall time of the workload's steps (Steps mode), StepsDone the
	// steps done in its hours (Hours mode).
	Seconds   float64 `json:"seconds,omitempty"`
	StepsDone float64 `json:"steps_done,omitempty"`
	// CostUSD is the price of the workload at the GPU's on-demand rate; nil without a price.
	CostUSD     *float64 `json:"cost_usd,omitempty"`
	StepsPerUSD float64  `json:"steps_per_usd,omitempty"`
	TimeRank    int      `json:"time_rank,omitempty"` // 1 = fastest; 0 = not predicted
	CostRank    int      `json:"cost_rank,omitempty"` // 1 = most cost-efficient; 0 = no price
}

// Versus compares the fastest and the most cost-efficient GPU with the user's own.
type Versus struct {
	GPU string `json:"gpu"`
	// Speedup is the have GPU's time over the fastest's; CostRatio the have GPU's cost per step
	// over the most cost-efficient's (0 when the have GPU has no price).
	Speedup   float64 `json:"speedup_of_fastest"`
	CostRatio float64 `json:"cost_ratio_of_cheapest,omitempty"`
	// CheapestSpeedup is the have GPU's time over the most cost-efficient GPU's.
	CheapestSpeedup float64 `json:"speedup_of_cheapest,omitempty"`
	Advice          string  `json:"advice"`
}

// GPUNameError is a GPU named to Recommend that cannot be ranked: one unknown to the catalogue
// or, the user's, not running CUDA (Err); or, without a GPU of the user's, every GPU to rank
// made by another vendor (Others), which would leave the ranking empty.
type GPUNameError struct {
	Have   bool     // the user's GPU, not one of those to rank
	Others []string // every GPU to rank, as "W6600 (AMD)", where none runs CUDA
	Err    error
}

func (e *GPUNameError) Error() string {
	if len(e.Others) > 0 {
		return fmt.Sprintf("the GPUs to rank are only %s; %v, so none can be predicted", strings.Join(e.Others, ", "), smart.ErrNotCUDA)
	}
	if e.Have {
		return "the GPU you have: " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *GPUNameError) Unwrap() error { return e.Err }

// CheckGPUNames looks up the GPUs to rank and the user's (have, "" for none) as Recommend
// would, before any prediction, returning a *GPUNameError for the first that cannot be ranked.
func (p *Predictor) CheckGPUNames(gpus []string, have string) error {
	var others []string
	for _, n := range gpus {
		g, err := p.Catalog.Lookup(n)
		if err != nil {
			return &GPUNameError{Err: err}
		}
		if g.RunsCUDA() != nil {
			others = append(others, fmt.Sprintf("%s (%s)", g.Name, g.Vendor))
		}
	}
	if have == "" {
		if len(gpus) > 0 && len(others) == len(gpus) {
			return &GPUNameError{Others: others, Err: smart.ErrNotCUDA}
		}
		return nil
	}
	g, err := p.Catalog.Lookup(have)
	if err == nil {
		err = g.RunsCUDA()
	}
	if err != nil {
		return &GPUNameError{Have: true, Err: err}
	}
	return nil
}

// RecommendAll recommends GPUs for each of ins as Recommend does, one after the other, and
// hands each recommendation to yield as it comes. A recommendation's error (naming the input's
// file) does not stop the others: the errors are returned joined at the end. yield's error, or
// the context's end, stops them; the context's end is returned with the errors so far and,
// where inputs were left, one saying how many.
func (p *Predictor) RecommendAll(ctx context.Context, ins []Input, gpus []string, have string, w Workload, yield func(i int, r *Recommendation) error) error {
	var errs []error
	for i, in := range ins {
		r, err := p.Recommend(ctx, in, gpus, have, w)
		if err != nil {
			err = fmt.Errorf("%s: %w", inputName(in), err)
			errs = append(errs, err)
			if ctx.Err() == nil {
				continue // the others go on
			}
			if left := ins[i+1:]; len(left) > 0 {
				errs = append(errs, notReached(ctx, left))
			}
			return errors.Join(errs...)
		}
		if err := yield(i, r); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// inputName names an input in errors: its file, or its stencil's name where it has none.
func inputName(in Input) string { return cmp.Or(in.File, in.Stencil.Name) }

// notReached is the context's end for the inputs left that it kept from being recommended: how
// many, from the first to the last.
func notReached(ctx context.Context, left []Input) error {
	if len(left) == 1 {
		return fmt.Errorf("1 stencil not reached (%s): %w", inputName(left[0]), ctx.Err())
	}
	return fmt.Errorf("%d stencils not reached (%s to %s): %w", len(left), inputName(left[0]), inputName(left[len(left)-1]), ctx.Err())
}

// Recommend predicts the stencil on gpus (nil: the GPUs of predict's table, Predictor.AllGPUs),
// each as smart predict would if asked about it, and ranks them. have, if not empty, names the
// user's GPU (any alias); it is added to gpus when missing.
func (p *Predictor) Recommend(ctx context.Context, in Input, gpus []string, have string, w Workload) (*Recommendation, error) {
	st := in.Stencil
	if w.Steps == 0 && w.Hours == 0 {
		w.Steps = int64(st.Steps)
	}
	s, err := p.newSession(in)
	if err != nil {
		return nil, err
	}
	list, err := s.gpuList(gpus, have)
	if err != nil {
		return nil, err
	}
	times, err := s.across(ctx, list)
	if err != nil {
		return nil, err
	}
	haveName := ""
	if have != "" {
		g, _ := p.Catalog.Lookup(have) // resolved by gpuList
		haveName = g.Name
	}
	r, err := rankAll(times, w, haveName)
	if err != nil {
		return nil, fmt.Errorf("stencil %s: %w", st.Name, err)
	}
	r.File, r.Stencil, r.Measured = in.File, stencilInfo(st), p.measuredOf(st)
	r.Models, r.Warnings = modelInfo(st, s.used()...)
	if w := s.beyondWarning(); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if w := s.blindWarning(); w != "" {
		r.Warnings = append(r.Warnings, w)
		if r.Have != nil {
			r.Have.Advice = fmt.Sprintf("no advice: the %s's time and the others' come from a model that does not tell GPUs apart (warnings)", r.Have.GPU)
		}
	}
	return r, nil
}

// rankAll ranks predicted times by time and by cost for workload w and compares them with the
// GPU called have (catalogue name; "" for none).
func rankAll(times []GPUTime, w Workload, have string) (*Recommendation, error) {
	r := &Recommendation{Workload: w}
	for _, t := range times {
		r.GPUs = append(r.GPUs, rank(t, w))
	}
	sort.SliceStable(r.GPUs, func(i, j int) bool { return lessTime(r.GPUs[i].Best, r.GPUs[j].Best) })
	if len(r.GPUs) == 0 {
		return nil, errors.New("no GPU considered")
	}
	if r.GPUs[0].Best == nil {
		// Say why, as the table would have ("AMD GPU: smart's kernels are CUDA", say), once for
		// the GPUs that share a reason: a stencil no GPU can run gives every GPU the same one.
		var reasons []string
		gpus := map[string][]string{}
		for _, g := range r.GPUs {
			if _, ok := gpus[g.Reason]; !ok {
				reasons = append(reasons, g.Reason)
			}
			gpus[g.Reason] = append(gpus[g.Reason], g.GPU)
		}
		const shown = 5
		var why []string
		for _, reason := range reasons {
			names := strings.Join(gpus[reason][:min(shown, len(gpus[reason]))], ", ")
			if n := len(gpus[reason]); n > shown {
				names += fmt.Sprintf(" and %d more", n-shown)
			}
			why = append(why, fmt.Sprintf("%s: %s", names, reason))
		}
		if n := len(why); n > shown {
			why = append(why[:shown], fmt.Sprintf("and %d more reasons", n-shown))
		}
		return nil, fmt.Errorf("no GPU considered has a prediction (%s)", strings.Join(why, "; "))
	}
	var priced []*Ranked
	for i := range r.GPUs {
		g := &r.GPUs[i]
		if g.Best == nil {
			continue
		}
		g.TimeRank = i + 1
		if g.CostUSD != nil {
			priced = append(priced, g)
		}
	}
	r.Fastest = r.GPUs[0].GPU
	if fiv := r.GPUs[0].Best.Interval; fiv != nil {
		for _, g := range r.GPUs[1:] {
			if g.Best != nil && g.Best.Interval != nil && fiv.Overlaps(*g.Best.Interval) {
				r.Overlapping = append(r.Overlapping, g.GPU)
			}
		}
	}
	sort.SliceStable(priced, func(i, j int) bool { return priced[i].StepsPerUSD > priced[j].StepsPerUSD })
	for i, g := range priced {
		g.CostRank = i + 1
	}
	if len(priced) > 0 {
		r.Cheapest = priced[0].GPU
	}
	if have != "" {
		r.Have = r.versus(have)
	}
	return r, nil
}

// gpuList resolves the GPUs to rank.
func (s *session) gpuList(names []string, have string) ([]smart.GPU, error) {
	p := s.p
	var list []smart.GPU
	if len(names) == 0 {
		list = s.tableGPUs()
	}
	for _, n := range names {
		g, err := p.Catalog.Lookup(n)
		if err != nil {
			return nil, err
		}
		list = append(list, g)
	}
	if have != "" {
		g, err := p.Catalog.Lookup(have)
		if err != nil {
			return nil, fmt.Errorf("the GPU you have: %w", err)
		}
		if err := g.RunsCUDA(); err != nil {
			return nil, fmt.Errorf("the GPU you have: %w", err)
		}
		found := false
		for _, x := range list {
			found = found || x.Name == g.Name
		}
		if !found {
			list = append(list, g)
		}
	}
	seen := map[string]bool{}
	out := list[:0]
	for _, g := range list {
		if !seen[g.Name] {
			seen[g.Name] = true
			out = append(out, g)
		}
	}
	return out, nil
}

func rank(t GPUTime, w Workload) Ranked {
	r := Ranked{GPUTime: t}
	if t.Best == nil {
		return r
	}
	ms := t.Best.TimeMs
	if w.Hours > 0 {
		r.StepsDone = w.Hours * 3.6e6 / ms
	} else {
		r.Seconds = float64(w.Steps) * ms / 1e3
	}
	if t.Price != nil && t.Price.USDPerHour > 0 {
		r.StepsPerUSD = 3.6e6 / ms / t.Price.USDPerHour
		cost := w.Hours * t.Price.USDPerHour
		if w.Hours == 0 {
			cost = r.Seconds / 3600 * t.Price.USDPerHour
		}
		r.CostUSD = &cost
	}
	return r
}

func (r *Recommendation) find(name string) *Ranked {
	for i := range r.GPUs {
		if r.GPUs[i].GPU == name {
			return &r.GPUs[i]
		}
	}
	return nil
}

// versus compares the fastest and the most cost-efficient GPU with have.
func (r *Recommendation) versus(have string) *Versus {
	v := &Versus{GPU: have}
	h, fast := r.find(have), r.find(r.Fastest)
	if h == nil || h.Best == nil {
		reason := "it has no prediction"
		if h != nil && h.Reason != "" {
			reason = h.Reason
		}
		v.Advice = fmt.Sprintf("%s cannot be compared: %s", have, reason)
		return v
	}
	v.Speedup = h.Best.TimeMs / fast.Best.TimeMs
	switch {
	case have == r.Fastest:
		v.Advice = fmt.Sprintf("keep the %s: no GPU considered is predicted faster", have)
	case v.Speedup < 1.1:
		v.Advice = fmt.Sprintf("keep the %s: the fastest, %s, is predicted only %.2fx faster", have, r.Fastest, v.Speedup)
	default:
		v.Advice = fmt.Sprintf("the %s is predicted %.2fx faster than your %s", r.Fastest, v.Speedup, have)
	}
	if r.Cheapest == "" {
		return v
	}
	c := r.find(r.Cheapest)
	v.CheapestSpeedup = h.Best.TimeMs / c.Best.TimeMs
	if h.CostUSD != nil {
		v.CostRatio = c.StepsPerUSD / h.StepsPerUSD // per step, whether steps or hours are priced
		if r.Cheapest != have && v.CostRatio > 1 {
			v.Advice += fmt.Sprintf("; renting the %s instead would cost %.0f%% less per step (%.2fx the speed)", r.Cheapest, 100*(1-1/v.CostRatio), v.CheapestSpeedup)
		} else if r.Cheapest == have {
			v.Advice += fmt.Sprintf("; at on-demand prices the %s is also the most cost-efficient", have)
		}
	} else {
		v.Advice += fmt.Sprintf("; if you rent, the %s does the most steps per dollar (%.2fx your speed, %s per %s)", r.Cheapest, v.CheapestSpeedup, FormatUSD(c.CostUSD), r.Workload)
	}
	return v
}

// FormatUSD writes an amount of dollars with the digits that matter ("-" for none): whole
// dollars from $100, cents from $1, four decimals from a cent, and three significant digits
// below a cent and from a million dollars up (in e-notation beyond 1e-4 and 1e6). A fixed number
// of decimals would print $0.0000 for every GPU of a short workload, whose costs still differ,
// and hundreds of digits for a huge one.
func FormatUSD(v *float64) string {
	if v == nil {
		return "-"
	}
	switch a := math.Abs(*v); {
	case a == 0:
		return "$0"
	case a >= 1e6 || a < 0.01 || math.IsNaN(a):
		return "$" + strconv.FormatFloat(*v, 'g', 3, 64)
	case a >= 100:
		return fmt.Sprintf("$%.0f", *v)
	case a >= 1:
		return fmt.Sprintf("$%.2f", *v)
	default:
		return fmt.Sprintf("$%.4f", *v)
	}
}

// String says what the workload is.
func (w Workload) String() string {
	switch {
	case w.Hours == 1:
		return "1 hour"
	case w.Hours > 0:
		return fmt.Sprintf("%g hours", w.Hours)
	}
	return english.Plural(w.Steps, "step")
}
