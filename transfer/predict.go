package transfer

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"smart"
	"smart/dataset"
	"smart/models"
)

// Source is one kernel's measurements on one GPU.
type Source struct {
	GPU  smart.GPU // its catalogue entry; a zero GPU where the catalogue lacks it
	Rows []smart.Measurement
	// Named is the device its file names where the caller took the file as GPU's, another
	// (File.Named): the basis says so. Empty where the file names GPU or nothing.
	Named string
}

// Target is the GPU predicted for.
type Target struct {
	// GPU is its catalogue entry (or a user's catalogue file's); a zero GPU where there is none,
	// and then the shots alone set its level.
	GPU   smart.GPU
	Name  string              // what to call a target the catalogue lacks
	Shots []smart.Measurement // settings of the kernel measured on the target, if any
}

// Settings tune a prediction; the zero value is the default.
type Settings struct {
	// Share weighs bandwidth against compute in the hardware ratio, in (0, 1]; 0 fits it on the
	// sources where at least three share the target's vendor, and takes DefaultShare otherwise.
	Share float64
	// Level is the coverage of the intervals, in (0, 1); 0 means 0.8.
	Level float64
	// FP64 compares the GPUs' double-precision FLOPS rather than single-precision.
	FP64 bool
	// SourceLevel answers, where nothing gives the target's level, at the sources' own: a
	// ranking of the settings rather than their times (a tuner's prior), not ErrNoLevel.
	SourceLevel bool
	// Ratio, when set, scales each source's time of a setting to the target's by a ratio of
	// the setting's own (an analytic model's time of it on the two GPUs), in place of the
	// hardware ratio and the sources' shape; false leaves that source out of the setting.
	Ratio func(v Variant, from, to smart.GPU) (float64, bool)
	// AllVendors keeps the sources of other vendors than the target's: their ranking of the
	// settings can still inform a search where their times cannot.
	AllVendors bool
	// RatioName says what Ratio is, for the basis (e.g. "the calibrated analytic model's").
	RatioName string
	// Floor, when set, is the least time a setting can take on the target (0: none known): a
	// prediction below it is raised to it, and so is its interval.
	Floor func(v Variant, to smart.GPU) float64
}

// DefaultShare is the hardware ratio's weight of bandwidth where the sources cannot fit one:
// half, the choice that assumes nothing of the kernel.
const DefaultShare = 0.5

// Corrections the shots can make, simplest first.
const (
	CorrectNone   = "none"
	CorrectLevel  = "level"
	CorrectSpread = "level and spread"
	CorrectParams = "level and parameters"
)

// Prediction is the target's predicted time for every setting the sources ran.
type Prediction struct {
	Target  string   `json:"target"`
	GPU     string   `json:"gpu,omitempty"`     // the target's catalogue name; empty where it has none
	Sources []string `json:"sources"`           // the GPUs whose measurements it rests on
	Ignored []string `json:"ignored,omitempty"` // sources of another vendor than the target's
	// OtherVendor is true where no source is of the target's vendor, so that all of them answer:
	// another vendor's build of a kernel is another program, whose times the sources' rank and
	// scale worse than their own vendor's (docs/results/transfer.md), and the sources' errors
	// on one another say nothing of their error on the target.
	OtherVendor bool `json:"other_vendor,omitempty"`
	// Share is the hardware ratio's weight of bandwidth (0 where the level came from shots
	// alone); ShareFitted says whether the sources fitted it.
	Share       float64 `json:"share"`
	ShareFitted bool    `json:"share_fitted"`
	Shots       int     `json:"shots"`      // settings measured on the target that taught it
	Correction  string  `json:"correction"` // what the shots corrected
	// LeftOut are the shots at settings no source holds, which nothing predicts and Variants
	// leave out (a cache of the sources' parameters could not list their values); ShotsLeftOut
	// is their number.
	LeftOut      []Variant `json:"left_out_shots,omitempty"`
	ShotsLeftOut int       `json:"shots_left_out,omitempty"`
	// Interval bounds ln(measured/predicted) at its level; nil where nothing measures it, and
	// then NoInterval says why.
	Interval   *models.Interval `json:"interval,omitempty"`
	NoInterval string           `json:"no_interval,omitempty"`
	Basis      string           `json:"basis"` // what stands behind the times, in a sentence
	Variants   []Variant        `json:"variants"`
	// Params, where a foreign kernel's parameters hold booleans or labels, say what value each
	// code of a setting stands for (dataset.Param.Text); the caller sets them.
	Params []dataset.Param `json:"params,omitempty"`
	// Names are the stencils' names by ID, where the variants are of stencils; the caller sets
	// them (StencilNames).
	Names map[string]string `json:"names,omitempty"`
}

// Variant is one setting's prediction; its Setting is the map of a row given, shared.
type Variant struct {
	Kernel    string            `json:"kernel,omitempty"`
	StencilID string            `json:"stencil_id,omitempty"`
	OC        smart.Combination `json:"oc"`
	Setting   smart.Setting     `json:"setting"`
	TimeMs    float64           `json:"time_ms,omitempty"` // predicted; a shot's is its measured time; none in ChooseShots' list
	LoMs      float64           `json:"lo_ms,omitempty"`   // the interval; zero without one
	HiMs      float64           `json:"hi_ms,omitempty"`
	Shot      bool              `json:"shot,omitempty"`   // measured on the target
	Failed    bool              `json:"failed,omitempty"` // failed on every source that ran it
	// FailedToCompile says every source that failed it failed to compile it (Failed is set).
	FailedToCompile bool `json:"failed_to_compile,omitempty"`
	Floored         bool `json:"floored,omitempty"` // predicted below Settings.Floor, and raised to it
	Sources         int  `json:"sources"`           // sources that ran it successfully
	key             string
}

// Key identifies the variant's kernel, OC and setting as Key does a row's.
func (v Variant) Key() string {
	if v.key != "" {
		return v.key
	}
	return Key(smart.Measurement{Kernel: v.Kernel, StencilID: v.StencilID, OC: v.OC, Setting: v.Setting})
}

// Errors of inputs a prediction cannot rest on.
var (
	ErrNoSources = errors.New("no source measurements")
	ErrNoLevel   = errors.New("the target's level is unknown: neither the catalogue's description of it and of every source nor a successful shot gives it")
)

// variant is the working state of one setting.
type variant struct {
	row    smart.Measurement // a row naming it
	shape  float64           // mean of the sources' ln time about their levels
	n      int               // sources that ran it ok
	pred   float64           // ln predicted time before the shots' correction
	shot   float64           // ln measured time on the target; NaN when not a shot
	shotOK bool
	given  bool   // among the target's shots, ok or not
	id     string // the kernel's
	// compileFails and otherFails count the sources' rows of it that failed to compile, and
	// that failed otherwise.
	compileFails, otherFails int
}

// Predict predicts the target's time for every setting in the sources.
func Predict(sources []Source, target Target, s Settings) (*Prediction, error) {
	st, err := newState(sources, target, s)
	if err != nil {
		return nil, err
	}
	if !st.hw && s.Ratio == nil && st.shotCount() == 0 && !s.SourceLevel {
		return nil, ErrNoLevel
	}
	return st.predict(), nil
}

// state is a prediction in the making.
type state struct {
	s       Settings
	target  Target
	used    []*index // the sources answering
	ignored []string
	foreign bool                // no source is of the target's vendor
	leftOut []smart.Measurement // shots at settings no source holds
	share   float64
	fitted  bool
	hw      bool     // every GPU involved has what the hardware ratio needs
	ids     []string // the kernels, in the order they first appear
	byID    map[string][]string
	keys    []string
	vars    map[string]*variant
	level   map[string]float64 // each kernel's ln level on the target before the shots
}

// index is one source's ln times by setting.
type index struct {
	gpu    smart.GPU
	name   string
	named  string             // Source.Named
	ln     map[string]float64 // ok rows only
	center map[string]float64 // its level of each kernel it ran
}

func newState(sources []Source, target Target, s Settings) (*state, error) {
	if s.Level == 0 {
		s.Level = 0.8
	}
	if !(s.Level > 0 && s.Level < 1) || s.Share < 0 || s.Share > 1 {
		return nil, fmt.Errorf("settings: level %g must lie in (0, 1) and share %g in [0, 1]", s.Level, s.Share)
	}
	st := &state{s: s, target: target, vars: map[string]*variant{}, byID: map[string][]string{}}
	if err := st.index(sources); err != nil {
		return nil, err
	}
	st.hw = hardwareKnown(target.GPU, s.FP64)
	for _, ix := range st.used {
		st.hw = st.hw && hardwareKnown(ix.gpu, s.FP64)
	}
	st.addShots(target.Shots)
	st.centers()
	st.fitShare()
	return st, nil
}

// rowID names the kernel a row belongs to.
func rowID(m smart.Measurement) string {
	if m.StencilID != "" {
		return "stencil " + m.StencilID
	}
	return "kernel " + m.Kernel
}

// Key identifies a row's kernel, OC and setting: the rows of one setting on several GPUs share
// it.
func Key(m smart.Measurement) string {
	return rowID(m) + "|" + m.OC.String() + "|" + m.Setting.String()
}

func okTime(m smart.Measurement) bool {
	return m.Status == smart.StatusOK && m.TimeMs > 0 && !math.IsInf(m.TimeMs, 0) && !math.IsNaN(m.TimeMs)
}

// index reads the sources, keeping those of the target's vendor where there are any.
func (st *state) index(sources []Source) error {
	var all []*index
	for i, src := range sources {
		name := cmp.Or(src.GPU.Name, fmt.Sprintf("source %d", i+1))
		ix := &index{gpu: src.GPU, name: name, named: src.Named, ln: map[string]float64{}, center: map[string]float64{}}
		for _, m := range src.Rows {
			k := st.add(m)
			switch v := st.vars[k]; {
			case m.Status == smart.StatusCompileError:
				v.compileFails++
			case !okTime(m):
				v.otherFails++
			}
			if okTime(m) {
				if _, dup := ix.ln[k]; !dup {
					ix.ln[k] = math.Log(m.TimeMs)
				}
			}
		}
		if len(ix.ln) > 0 {
			all = append(all, ix)
		}
	}
	if len(all) == 0 {
		return ErrNoSources
	}
	vendor := st.target.GPU.Vendor
	if st.s.AllVendors {
		vendor = ""
	}
	for _, ix := range all {
		if vendor == "" || ix.gpu.Vendor == vendor {
			st.used = append(st.used, ix)
		}
	}
	if len(st.used) == 0 {
		st.used = all // no source of the target's vendor: every source is better than none
	}
	for _, ix := range all {
		if !slices.Contains(st.used, ix) {
			st.ignored = append(st.ignored, ix.name)
		}
	}
	st.foreign = st.target.GPU.Vendor != "" &&
		!slices.ContainsFunc(st.used, func(ix *index) bool { return ix.gpu.Vendor == st.target.GPU.Vendor })
	return nil
}

// add makes m's setting known and returns its key.
func (st *state) add(m smart.Measurement) string {
	k := Key(m)
	if _, ok := st.vars[k]; !ok {
		id := rowID(m)
		st.vars[k] = &variant{row: m, shot: math.NaN(), id: id}
		st.keys = append(st.keys, k)
		if len(st.byID[id]) == 0 {
			st.ids = append(st.ids, id)
		}
		st.byID[id] = append(st.byID[id], k)
	}
	return k
}

// addShots marks the target's shots; one at a setting no source holds is left out (leftOut):
// nothing predicts it, and nothing it could teach reaches a setting the sources hold.
func (st *state) addShots(shots []smart.Measurement) {
	for _, m := range shots {
		v, ok := st.vars[Key(m)]
		if !ok {
			if !slices.ContainsFunc(st.leftOut, func(o smart.Measurement) bool { return Key(o) == Key(m) }) {
				st.leftOut = append(st.leftOut, m)
			}
			continue
		}
		v.given = true
		if okTime(m) && !v.shotOK {
			v.shot, v.shotOK = math.Log(m.TimeMs), true
		}
	}
}

func (st *state) shotCount() int {
	n := 0
	for _, v := range st.vars {
		if v.shotOK {
			n++
		}
	}
	return n
}

// centers sets each source's level of each kernel: its mean ln time over the kernel's settings
// every source ran (over its own where they share none), and each setting's shape about them.
func (st *state) centers() {
	for _, id := range st.ids {
		common := commonKeys(st.byID[id], st.used)
		for _, ix := range st.used {
			if c, ok := meanOver(ix.ln, common, st.byID[id]); ok {
				ix.center[id] = c
			}
		}
	}
	for _, k := range st.keys {
		v := st.vars[k]
		v.shape, v.n = 0, 0
		for _, ix := range st.used {
			if t, ok := ix.ln[k]; ok {
				v.shape += t - ix.center[v.id]
				v.n++
			}
		}
		if v.n > 0 {
			v.shape /= float64(v.n)
		}
	}
}

// commonKeys are the keys every source ran successfully.
func commonKeys(keys []string, srcs []*index) []string {
	var out []string
	for _, k := range keys {
		all := true
		for _, ix := range srcs {
			if _, ok := ix.ln[k]; !ok {
				all = false
				break
			}
		}
		if all {
			out = append(out, k)
		}
	}
	return out
}

// meanOver is the mean of ln over keys, or over fallback where none of keys is in it; false
// where neither is.
func meanOver(ln map[string]float64, keys, fallback []string) (float64, bool) {
	for _, ks := range [][]string{keys, fallback} {
		sum, n := 0.0, 0
		for _, k := range ks {
			if t, ok := ln[k]; ok {
				sum += t
				n++
			}
		}
		if n > 0 {
			return sum / float64(n), true
		}
	}
	return 0, false
}

func (st *state) predict() *Prediction {
	p := &Prediction{Target: st.targetName(), GPU: st.target.GPU.Name, Ignored: st.ignored,
		Share: st.share, ShareFitted: st.fitted, OtherVendor: st.foreign, ShotsLeftOut: len(st.leftOut)}
	for _, m := range st.leftOut {
		p.LeftOut = append(p.LeftOut, Variant{Kernel: m.Kernel, StencilID: m.StencilID, OC: m.OC, Setting: m.Setting,
			TimeMs: m.TimeMs, Shot: true, Failed: !okTime(m)})
	}
	for _, ix := range st.used {
		p.Sources = append(p.Sources, ix.name)
	}
	c := st.corrected()
	p.Shots, p.Correction = c.n, c.kind
	p.Interval, p.NoInterval = st.interval(c)
	p.Basis = st.basis(p)
	for _, k := range st.keys {
		v := st.vars[k]
		out := Variant{Kernel: v.row.Kernel, StencilID: v.row.StencilID, OC: v.row.OC,
			Setting: v.row.Setting, Sources: v.n, key: k}
		switch {
		case v.shotOK:
			out.TimeMs, out.Shot = math.Exp(v.shot), true
		case v.n == 0:
			out.Failed, out.FailedToCompile = true, v.compileFails > 0 && v.otherFails == 0
		default:
			ln := v.pred + c.at(v)
			out.TimeMs = math.Exp(ln)
			if p.Interval != nil {
				out.LoMs, out.HiMs = math.Exp(ln+p.Interval.LogLo), math.Exp(ln+p.Interval.LogHi)
			}
			st.floor(&out)
		}
		p.Variants = append(p.Variants, out)
	}
	slices.SortStableFunc(p.Variants, func(a, b Variant) int {
		if a.Failed != b.Failed {
			if a.Failed {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.TimeMs, b.TimeMs)
	})
	return p
}

// corrected sets each setting's prediction before the shots, and fits the shots' correction.
func (st *state) corrected() correction {
	for _, k := range st.keys {
		v := st.vars[k]
		v.pred = v.shape + st.level[v.id]
		if st.s.Ratio != nil {
			v.pred, v.n = st.scaled(k, v, st.used, st.target.GPU)
		}
	}
	return st.correct()
}

// floor raises v, and its interval, to the least time Settings.Floor gives it on the target.
func (st *state) floor(v *Variant) {
	if st.s.Floor == nil {
		return
	}
	f := st.s.Floor(*v, st.target.GPU)
	if v.TimeMs < f {
		v.TimeMs, v.Floored = f, true
	}
	if v.HiMs > 0 {
		v.LoMs, v.HiMs = max(v.LoMs, f), max(v.HiMs, f)
	}
}

// scaled is the mean over srcs of ln of v's (key's) time there times Ratio's, and how many
// answered.
func (st *state) scaled(key string, v *variant, srcs []*index, to smart.GPU) (float64, int) {
	sum, n := 0.0, 0
	for _, ix := range srcs {
		t, ok := ix.ln[key]
		if !ok {
			continue
		}
		if r, ok := st.s.Ratio(v.public(key), ix.gpu, to); ok && r > 0 && !math.IsInf(r, 1) {
			sum += t + math.Log(r)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// public is v, whose key is key, as a Variant with no prediction yet.
func (v *variant) public(key string) Variant {
	return Variant{Kernel: v.row.Kernel, StencilID: v.row.StencilID, OC: v.row.OC, Setting: v.row.Setting, key: key}
}

func (st *state) basis(p *Prediction) string {
	var b strings.Builder
	what := "the " + st.ids[0] + "'s"
	if len(st.ids) > 1 {
		what = fmt.Sprintf("%d kernels'", len(st.ids))
	}
	fmt.Fprintf(&b, "%s measurements on %s", what, strings.Join(p.Sources, ", "))
	switch {
	case st.s.Ratio != nil:
		fmt.Fprintf(&b, ", each setting's time scaled to %s by %s ratio of its times on the two GPUs", p.Target, cmp.Or(st.s.RatioName, "a"))
	case st.hw:
		how := "the default share"
		if p.ShareFitted {
			how = "a share fitted on the sources"
		} else if st.s.Share > 0 {
			how = "the given share"
		}
		fmt.Fprintf(&b, ", moved to %s by the catalogue's bandwidth and %s (%s, %.2f bandwidth)", p.Target, flopsName(st.s.FP64), how, p.Share)
		gpus := []smart.GPU{st.target.GPU}
		for _, ix := range st.used {
			gpus = append(gpus, ix.gpu)
		}
		for _, g := range gpus {
			if g.Dies > 1 {
				fmt.Fprintf(&b, "; the %s as one of its %d dies, the device a kernel runs on", g.Name, g.Dies)
			}
		}
	}
	switch {
	case p.Shots > 0:
		fmt.Fprintf(&b, "; %d settings measured on %s correct the %s", p.Shots, p.Target, p.Correction)
	case !st.hw && st.s.Ratio == nil:
		b.WriteString(", at the sources' level: nothing gives the target's, so the times rank the settings and are not its times")
	default:
		b.WriteString("; no setting measured on the target (zero-shot)")
	}
	if st.s.Floor != nil {
		b.WriteString("; no time below the setting's floor on the target (its grid read and written at the copy bandwidth, or its FMAs at the peak rate)")
	}
	for _, ix := range st.used {
		if ix.named != "" {
			fmt.Fprintf(&b, "; the measurements taken as the %s's name their device %s", ix.name, ix.named)
		}
	}
	if p.OtherVendor {
		fmt.Fprintf(&b, "; every source is another vendor's than the target's (%s): another vendor's build of a kernel is another program, and such predictions erred 45-92%% zero-shot where measured (NVIDIA sources, AMD targets: docs/results/transfer.md)", st.target.GPU.Vendor)
	}
	return b.String()
}

// flopsName is the FLOPS the hardware ratio compares.
func flopsName(fp64 bool) string {
	if fp64 {
		return "double-precision FLOPS"
	}
	return "FLOPS"
}
