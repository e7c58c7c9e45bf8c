package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"smart"
	"smart/dataset"
	"smart/internal/english"
	"smart/space"
	"smart/tuner"
)

// openReplay opens replay:DIR for a stencil: its rows of a data set, on the data set's GPU
// where none is named. A data set holds a sample of each OC's space, not all of it, and a
// replay answers only what was measured, so each OC's space is cut to the settings held.
func (tg *Tuning) openReplay(ctx context.Context, name EvaluatorName) error {
	t, dir := tg.tune, name.Path
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return &SettingError{Field: "Evaluator", Value: name.String(), Err: err}
	case !info.IsDir():
		return wrong("Evaluator", name.String(), "replays a Kernel Tuner file's own kernel, not a stencil: give no stencil file, or a data set directory of the stencil's rows")
	}
	meta, rows, err := dataset.ReadAll(dir)
	if err != nil {
		return &SettingError{Field: "Evaluator", Value: name.String(), Err: err}
	}
	id := t.Stencil.ID()
	rows = slices.DeleteFunc(rows, func(m smart.Measurement) bool { return m.StencilID != id })
	if len(rows) == 0 {
		why := ""
		if len(meta.Kernels) > 0 {
			why = "; its Kernel Tuner kernels are tuned with no stencil file"
		}
		return wrong("Evaluator", name.String(), "%s holds no rows of stencil %s (ID %s)%s", dir, t.Stencil.Name, id, why)
	}
	var gpus []string
	for _, m := range rows {
		if !slices.Contains(gpus, m.GPU) {
			gpus = append(gpus, m.GPU)
		}
	}
	if t.GPU == "" {
		if len(gpus) > 1 {
			return wrong("GPU", "", "%s holds rows of %s on %d GPUs (%s); name one", dir, t.Stencil.Name, len(gpus), strings.Join(gpus, ", "))
		}
		t.GPU = gpus[0]
		notef(t.Notes, "tuning for the %s, the GPU of %s's rows in %s\n", t.GPU, t.Stencil.Name, dir)
	}
	g, err := tg.cat.Lookup(t.GPU)
	if err != nil {
		return &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	rows = slices.DeleteFunc(rows, func(m smart.Measurement) bool { return !strings.EqualFold(m.GPU, g.Name) })
	if len(rows) == 0 {
		return wrong("GPU", t.GPU, "%s holds no rows of %s on the %s; it holds %s", dir, t.Stencil.Name, g.Name, strings.Join(gpus, ", "))
	}
	// A replay answers a GPU from one device's rows: those of another device of the same GPU
	// would be asked for and not found.
	device := rows[0].Device
	if n := len(rows); slices.ContainsFunc(rows, func(m smart.Measurement) bool { return m.Device != device }) {
		rows = slices.DeleteFunc(rows, func(m smart.Measurement) bool { return m.Device != device })
		notef(t.Notes, "%s holds %s's rows of several %s devices; replaying the %d of %s, not the other %d\n", dir, t.Stencil.Name, g.Name, len(rows), device, n-len(rows))
	}
	b := &Backend{Evaluator: dataset.NewReplay(rows, nil), GPU: g, Source: rows[0].Source, Device: dataset.Device{GPU: g.Name, Name: device}}
	if i := slices.IndexFunc(meta.Devices, func(d dataset.Device) bool { return d.Name == device && strings.EqualFold(d.GPU, g.Name) }); i >= 0 {
		b.Device = meta.Devices[i]
	}
	vs, held, err := heldVariants(ctx, t.Stencil, t.OCs, g, rows)
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return wrong("Evaluator", name.String(), "%s holds no setting of %s on the %s under the OCs searched that is valid there", dir, t.Stencil.Name, g.Name)
	}
	notef(t.Notes, "%s holds a sample of each OC's space, not all of it: the search covers only the %d settings of %s it holds on the %s, under %s%s\n",
		dir, held.settings, t.Stencil.Name, g.Name, english.Plural(len(vs), "OC"), held.rest(len(rows), g.Name))
	tg.Backend, tg.GPU, tg.Source, tg.Device = b, g, b.Source, b.Device
	tg.Problem = tuner.Problem{Variants: vs, Evaluator: b.Evaluator, Stencil: t.Stencil, GPU: g.Name}
	tg.Kernel = t.Stencil.Name
	return nil
}

// held counts the rows of a replay against the settings searched.
type held struct {
	settings int // the settings searched: held under an OC searched, and in its space
	others   int // rows of OCs not searched
	repeats  int // rows of a setting held before under the same OC
	// ruledOut are the settings held under an OC searched that the space rules out today, by
	// rule in the order met.
	ruledOut []ruledOut
}

type ruledOut struct {
	rule, example string // the rule broken, and why the first setting broke it
	n             int
}

// rest says what the rows not searched are, of all rows: "" where every row is searched.
func (h held) rest(rows int, gpu string) string {
	var parts []string
	if h.others > 0 {
		parts = append(parts, fmt.Sprintf("%d of OCs not searched", h.others))
	}
	if h.repeats > 0 {
		parts = append(parts, fmt.Sprintf("%d repeating a setting", h.repeats))
	}
	if len(h.ruledOut) > 0 {
		n := 0
		var rules []string
		for _, r := range h.ruledOut {
			n += r.n
			rule := fmt.Sprintf("%d breaking %q", r.n, r.rule)
			if r.example != "" {
				rule += " (e.g. " + r.example + ")"
			}
			rules = append(rules, rule)
		}
		parts = append(parts, fmt.Sprintf("%d of settings today's space rules out on the %s: %s", n, gpu, strings.Join(rules, "; ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d of its %d rows are not: %s", rows-h.settings, rows, JoinList(parts, "and"))
}

// heldVariants are the spaces of st on gpu under ocs (nil: all) cut to the settings rows hold,
// in the order of ocs, leaving out the OCs of none, and the count of the rows.
func heldVariants(ctx context.Context, st *smart.Stencil, ocs []smart.Combination, gpu smart.GPU, rows []smart.Measurement) (vs []tuner.Variant, h held, err error) {
	if ocs == nil {
		ocs = smart.Combinations()
	}
	h.others = len(rows)
	for _, oc := range ocs {
		of := slices.DeleteFunc(slices.Clone(rows), func(m smart.Measurement) bool { return m.OC != oc })
		if len(of) == 0 {
			continue
		}
		h.others -= len(of)
		distinct := map[string]smart.Setting{}
		for _, m := range of {
			distinct[m.Setting.String()] = m.Setting
		}
		h.repeats += len(of) - len(distinct)
		params, err := space.StencilParams(st, oc, gpu)
		if err != nil {
			return nil, held{}, err
		}
		sp, err := space.New(ctx, tuner.HeldOnly(params, of))
		if err != nil {
			return nil, held{}, fmt.Errorf("setting space of %s under %s: %w", st.Name, oc, err)
		}
		n, _ := sp.Len()
		if n > 0 {
			vs, h.settings = append(vs, tuner.Variant{OC: oc, Space: sp}), h.settings+int(n)
		}
		if int(n) < len(distinct) {
			h.ruleOut(sp, distinct)
		}
	}
	return vs, h, nil
}

// ruleOut counts the settings of sp's rows that sp rules out, by the rule each breaks: a held
// setting passes the constraint of being held, so Check names the rule of today's space.
func (h *held) ruleOut(sp *space.Space, settings map[string]smart.Setting) {
	for _, key := range slices.Sorted(maps.Keys(settings)) {
		var v *space.Violation
		if !errors.As(sp.Check(settings[key]), &v) {
			continue
		}
		rule := cmp.Or(v.Constraint, "the values of "+v.Param)
		i := slices.IndexFunc(h.ruledOut, func(r ruledOut) bool { return r.rule == rule })
		if i < 0 {
			i = len(h.ruledOut)
			h.ruledOut = append(h.ruledOut, ruledOut{rule: rule, example: v.Problem})
		}
		h.ruledOut[i].n++
	}
}
