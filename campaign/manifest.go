// Package campaign plans and runs smart's measurement campaign: a fixed manifest of random
// stencils (StencilMART Algorithm 1) and of the settings to measure for each, drawn once on a
// machine without a GPU and committed, then measured on lent GPUs a stretch at a time, each call
// resuming where the last one stopped and logging its throughput.
//
// A manifest is a directory: manifest.json (the plan that made it and the stencils, in measuring
// order, each with the generator's coordinates so it is drawn again rather than stored) and
// items.csv.gz (the variants, stencil by stencil). Its hash names it in every data set measured
// from it, so a manifest edited after measuring began is refused rather than mixed.
package campaign

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"smart"
	"smart/dataset"
	"smart/generator"
	"smart/internal/atomicfile"
	"smart/internal/csvfile"
	"smart/predict"
	"smart/space"
)

// Format is the version tag of manifest.json.
const Format = "smart-campaign/1"

// File names inside a manifest directory.
const (
	ManifestFile = "manifest.json"
	ItemsFile    = "items.csv.gz"
)

// Spec is how a manifest is drawn.
type Spec struct {
	Seed     uint64 `json:"seed"`      // of the random stencils and of the uniform draws
	PerDims  int    `json:"per_dims"`  // random stencils of each dimensionality
	MaxOrder int    `json:"max_order"` // orders 1 to MaxOrder in equal shares
	// Float32Every: every this many blocks of MaxOrder consecutive stencils is float32, the
	// rest float64 (4: a quarter float32, in equal shares of every order).
	Float32Every int    `json:"float32_every"`
	Grid2D       [3]int `json:"grid_2d"`
	Grid3D       [3]int `json:"grid_3d"`
	// LargeEvery: one of every this many stencils is measured again on the large grid, so the
	// grid's effect is measured rather than assumed (orders in turn; every stencil when it is
	// below MaxOrder).
	LargeEvery int    `json:"large_every"`
	Large2D    [3]int `json:"large_2d"`
	Large3D    [3]int `json:"large_3d"`
	Uniform    int    `json:"uniform"`   // settings drawn uniformly per stencil and OC
	Predicted  int    `json:"predicted"` // settings the runtime model predicts fastest per stencil and OC
	GPU        string `json:"gpu"`       // catalogue GPU whose limits bound the settings, whose models predict
}

// DefaultSpec is the campaign of the measurement issue: 200 2-D and 200 3-D stencils of orders
// 1-4, a quarter float32, grids of 128 MiB a float64 buffer (far beyond an H100's 50 MB L2), a
// tenth again at 8x that, 2 uniform and 2 predicted settings per OC, for the H100.
func DefaultSpec() Spec {
	return Spec{Seed: 1, PerDims: 200, MaxOrder: 4, Float32Every: 4,
		Grid2D: [3]int{4096, 4096, 1}, Grid3D: [3]int{256, 256, 256},
		LargeEvery: 10, Large2D: [3]int{8192, 8192, 1}, Large3D: [3]int{512, 512, 512},
		Uniform: 2, Predicted: 2, GPU: "H100-SXM"}
}

// SpecError is a field of a Spec that cannot be used.
type SpecError struct {
	Field string // its Go name (PerDims), which a caller maps to its own input
	Key   string // its name in manifest.json (per_dims)
	Value string
	Err   error // what it may be
}

func (e *SpecError) Error() string { return fmt.Sprintf("%s is %s; %v", e.Key, e.Value, e.Err) }

func (e *SpecError) Unwrap() error { return e.Err }

// Check refuses a spec that cannot be drawn, with a *SpecError.
func (s Spec) Check() error {
	bad := func(field, key string, v int, format string, args ...any) error {
		return &SpecError{Field: field, Key: key, Value: strconv.Itoa(v), Err: fmt.Errorf(format, args...)}
	}
	switch {
	case s.PerDims < 1:
		return bad("PerDims", "per_dims", s.PerDims, "use 1 or more")
	case s.MaxOrder < 1 || s.MaxOrder > smart.MaxMaxOrder:
		return bad("MaxOrder", "max_order", s.MaxOrder, "use 1 to %d", smart.MaxMaxOrder)
	case s.Float32Every < 0:
		return bad("Float32Every", "float32_every", s.Float32Every, "use 0 (none) or more")
	case s.LargeEvery < 0:
		return bad("LargeEvery", "large_every", s.LargeEvery, "use 0 (none) or more")
	case s.Uniform < 0:
		return bad("Uniform", "uniform", s.Uniform, "use 0 or more")
	case s.Predicted < 0:
		return bad("Predicted", "predicted", s.Predicted, "use 0 or more")
	case s.Uniform+s.Predicted == 0:
		return bad("Predicted", "predicted", s.Predicted, "use 1 or more where uniform is 0 too: measure at least one setting per OC")
	case s.GPU == "":
		return &SpecError{Field: "GPU", Key: "gpu", Value: `""`, Err: errors.New("name the catalogue GPU whose limits bound the settings")}
	}
	return nil
}

// Entry is one stencil of a manifest: the generator's coordinates and what the manifest changed.
type Entry struct {
	ID    string      `json:"id"` // smart.Stencil.ID of the stencil drawn again
	Name  string      `json:"name"`
	Dims  int         `json:"dims"`
	Order int         `json:"order"`
	Index int         `json:"index"` // generator.Spec{Dims, Order, Seed}.Stencil(Index)
	Dtype smart.Dtype `json:"dtype"`
	Grid  [3]int      `json:"grid"`
	Large bool        `json:"large,omitempty"` // a copy on the large grid
	Items int         `json:"items"`           // variants in items.csv.gz
}

// Item is one variant of a manifest: a dataset.Item and why it was chosen.
type Item struct {
	dataset.Item
	Origin string // "uniform" or "predicted"
	// PredictedMs is the runtime model's time per step of a predicted item (0 for uniform ones).
	PredictedMs float64
}

// Manifest is a campaign's fixed plan.
type Manifest struct {
	Format  string   `json:"format"`
	Tool    string   `json:"tool_version"` // no date: the same flags and build draw the same bytes
	Spec    Spec     `json:"spec"`
	Models  []string `json:"models"` // the runtime models behind the predicted items
	Entries []Entry  `json:"stencils"`
	// ItemsSHA256 is the hash of items.csv.gz as written.
	ItemsSHA256 string `json:"items_sha256"`

	stencils []*smart.Stencil
	items    []Item
	hash     string
	dir      string // where Load read it; "" for a manifest drawn now
}

// Hash is the SHA-256 of manifest.json, which holds that of the items: it names the manifest
// in the data sets measured from it.
func (m *Manifest) Hash() string { return m.hash }

// Items are the manifest's variants, stencil by stencil in measuring order.
func (m *Manifest) Items() []Item { return m.items }

// Plan draws a manifest: the stencils of spec, and for each stencil and OC the settings the
// runtime models of models predict fastest (those first, fastest first) and settings drawn
// uniformly. progress, if not nil, is called after each stencil.
func Plan(ctx context.Context, spec Spec, gpu smart.GPU, models *predict.Models, progress func(done, total int)) (*Manifest, error) {
	if err := spec.Check(); err != nil {
		return nil, fmt.Errorf("campaign spec: %w", err)
	}
	if gpu.Name != spec.GPU {
		return nil, fmt.Errorf("campaign spec names GPU %s; %s was given", spec.GPU, gpu.Name)
	}
	if err := gpu.RunsCUDA(); err != nil { // its variants would all be recorded invalid
		return nil, fmt.Errorf("campaign spec: %w", err)
	}
	m := &Manifest{Format: Format, Tool: dataset.ToolVersion(), Spec: spec}
	entries, err := spec.entries()
	if err != nil {
		return nil, err
	}
	usedModels := map[string]bool{}
	base := map[int][]Item{} // items by index of the stencil they were drawn for
	seen := map[string]bool{}
	for i, e := range entries {
		if e.Large {
			e.Index = m.Entries[i-1].Index
		}
		e.name(spec.Seed)
		st, err := e.stencil(spec.Seed)
		// Small neighbourhoods repeat (a 2-D stencil of order 1 is one of 255 patterns): a
		// stencil drawn before is drawn again from the next unused index.
		for err == nil && !e.Large && seen[st.ID()] {
			e.Index += spec.PerDims
			e.name(spec.Seed)
			st, err = e.stencil(spec.Seed)
		}
		if err != nil {
			return nil, err
		}
		seen[st.ID()] = true
		var items []Item
		if e.Large {
			// The same settings as the stencil it copies, so that only the grid differs.
			items, err = recheck(ctx, base[i-1], st, gpu)
		} else {
			items, err = drawItems(ctx, spec, st, gpu, models, usedModels)
			base[i] = items
		}
		if err != nil {
			return nil, fmt.Errorf("stencil %s: %w", st.Name, err)
		}
		e.ID, e.Items = st.ID(), len(items)
		m.Entries = append(m.Entries, e)
		m.stencils = append(m.stencils, st)
		m.items = append(m.items, items...)
		if progress != nil {
			progress(i+1, len(entries))
		}
	}
	for name := range usedModels {
		m.Models = append(m.Models, name)
	}
	sort.Strings(m.Models)
	return m, nil
}

// entries lists the stencils of spec in measuring order: 2-D and 3-D alternating, each large
// copy right after its stencil. Names, IDs and item counts are filled in later, and the index of
// a stencil drawn before.
func (s Spec) entries() ([]Entry, error) {
	var out []Entry
	for i := 0; i < s.PerDims; i++ {
		for _, dims := range []int{2, 3} {
			order := 1 + i%s.MaxOrder
			e := Entry{Dims: dims, Order: order, Index: i, Dtype: smart.Float64, Grid: s.Grid2D}
			if dims == 3 {
				e.Grid = s.Grid3D
			}
			if s.Float32Every > 0 && (i/s.MaxOrder)%s.Float32Every == s.Float32Every-1 {
				e.Dtype = smart.Float32
			}
			out = append(out, e)
			if s.large(i) {
				l := e
				l.Large = true
				l.Grid = s.Large2D
				if dims == 3 {
					l.Grid = s.Large3D
				}
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// large reports whether stencil i is also measured on the large grid: one of each LargeEvery,
// of order 1, 2, ... MaxOrder in turn, so every order has its share.
func (s Spec) large(i int) bool {
	if s.LargeEvery < s.MaxOrder {
		return s.LargeEvery > 0
	}
	b, m := i/s.LargeEvery, s.MaxOrder
	offset := ((b%m-b*s.LargeEvery%m)%m + m) % m
	return i == b*s.LargeEvery+offset
}

// name names the entry by its generator coordinates, element type and grid.
func (e *Entry) name(seed uint64) {
	e.Name = generator.Spec{Dims: e.Dims, Order: e.Order, Seed: seed}.Name(e.Index)
	if e.Dtype == smart.Float32 {
		e.Name += "-f32"
	}
	if e.Large {
		e.Name += "-large"
	}
}

// stencil draws the entry's stencil again.
func (e Entry) stencil(seed uint64) (*smart.Stencil, error) {
	st, err := generator.Spec{Dims: e.Dims, Order: e.Order, Seed: seed}.Stencil(e.Index)
	if err != nil {
		return nil, fmt.Errorf("stencil %s: %w", e.Name, err)
	}
	st.Name, st.Dtype, st.Grid = e.Name, e.Dtype, e.Grid
	if err := st.Validate(smart.Limits{MaxOrder: smart.MaxMaxOrder}); err != nil {
		return nil, fmt.Errorf("stencil %s: %w", e.Name, err)
	}
	return st, nil
}

// drawItems chooses the settings of one stencil: per OC the Predicted fastest by the runtime
// model and Uniform drawn uniformly, predicted ones first (fastest first: the protocol cuts
// slow variants against the fastest measured so far), then the uniform ones in OC order.
func drawItems(ctx context.Context, spec Spec, st *smart.Stencil, gpu smart.GPU, models *predict.Models, used map[string]bool) ([]Item, error) {
	plan, err := dataset.NewPlan([]*smart.Stencil{st}, smart.Combinations(), max(spec.Uniform, 1), spec.Seed)
	if err != nil {
		return nil, err
	}
	// Each OC's space is built once, for the uniform draws and the predicted settings' check.
	spaces := map[smart.Combination]*space.Space{}
	spaceOf := func(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*space.Space, error) {
		if sp := spaces[oc]; sp != nil {
			return sp, nil
		}
		sp, err := space.ForStencilContext(ctx, st, oc, gpu)
		spaces[oc] = sp
		return sp, err
	}
	uniform, err := plan.Items(ctx, []*smart.Stencil{st}, gpu, spaceOf, nil)
	if err != nil {
		return nil, err
	}
	if spec.Uniform == 0 {
		uniform = slices.DeleteFunc(uniform, func(it dataset.Item) bool { return it.Invalid == "" })
	}
	var predicted []Item
	if spec.Predicted > 0 {
		rt, note, err := models.Own(st, gpu.Name)
		if err != nil {
			return nil, err
		}
		if rt == nil {
			if _, rt, err = models.For(st); err != nil {
				return nil, fmt.Errorf("runtime model: %w (%s)", err, note)
			}
		}
		used[rt.Name] = true
		score, err := predict.ModelScorer(rt, st, gpu)
		if err != nil {
			return nil, err
		}
		taken := map[string]bool{}
		for _, it := range uniform {
			taken[it.OC.String()+" "+it.Setting.String()] = true
		}
		for _, oc := range smart.Combinations() {
			sp, err := spaceOf(ctx, st, oc, gpu)
			if err != nil {
				return nil, err
			}
			found, err := predict.Search(ctx, score, st, oc, gpu, predict.Pass{Samples: 64, Starts: 2, Rounds: 4}, nil, rng(spec.Seed, st.ID(), oc))
			if err != nil {
				return nil, err
			}
			if found == nil {
				continue
			}
			n := 0
			for _, s := range found.Top {
				key := oc.String() + " " + s.String()
				if n == spec.Predicted || taken[key] || sp.Check(s) != nil {
					continue
				}
				ts, err := score(oc, []smart.Setting{s})
				if err != nil {
					return nil, err
				}
				taken[key] = true
				predicted = append(predicted, Item{Item: dataset.Item{Stencil: st, OC: oc, Setting: s}, Origin: "predicted", PredictedMs: ts[0]})
				n++
			}
		}
		sort.SliceStable(predicted, func(i, j int) bool { return predicted[i].PredictedMs < predicted[j].PredictedMs })
	}
	items := predicted
	for _, it := range uniform {
		items = append(items, Item{Item: it, Origin: "uniform"})
	}
	return items, nil
}

// recheck gives a large copy the items of its stencil, checked against its own space.
func recheck(ctx context.Context, items []Item, st *smart.Stencil, gpu smart.GPU) ([]Item, error) {
	spaces := map[smart.Combination]*space.Space{}
	var out []Item
	for _, it := range items {
		sp := spaces[it.OC]
		if sp == nil {
			var err error
			if sp, err = space.ForStencilContext(ctx, st, it.OC, gpu); err != nil {
				return nil, err
			}
			spaces[it.OC] = sp
		}
		c := it
		c.Stencil = st
		if c.Invalid == "" {
			if err := sp.Check(c.Setting); err != nil {
				c.Invalid = err.Error()
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func rng(seed uint64, id string, oc smart.Combination) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte("campaign|" + id + "|" + oc.String()))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

var itemsHeader = []string{"stencil_id", "oc", "setting", "origin", "predicted_ms", "invalid"}

// CheckNew refuses a directory that already holds a manifest: a manifest is never rewritten,
// since data sets name it by its hash. It refuses a data set's directory too, whose files a
// manifest's would sit among as if they were the data set's, and a file.
func CheckNew(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s is a file, not a directory; a manifest goes into a directory of its own", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return fmt.Errorf("%s already holds a campaign manifest; choose another directory (a manifest is never rewritten: data sets name it by its hash)", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, dataset.MetaFile)); err == nil {
		return fmt.Errorf("%s holds a data set (it has %s); a manifest goes into a directory of its own", dir, dataset.MetaFile)
	}
	return nil
}

// Save writes the manifest into dir, which must not hold one (CheckNew).
func (m *Manifest) Save(dir string) error {
	if err := CheckNew(dir); err != nil {
		return err
	}
	var raw bytes.Buffer
	w := csv.NewWriter(&raw)
	w.Write(itemsHeader)
	for _, it := range m.items {
		ms := ""
		if it.PredictedMs > 0 {
			ms = strconv.FormatFloat(it.PredictedMs, 'g', 6, 64)
		}
		w.Write([]string{it.Stencil.ID(), it.OC.String(), it.Setting.String(), it.Origin, ms, it.Invalid})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // no name or time: the same bytes every time
	zw.Write(raw.Bytes())
	if err := zw.Close(); err != nil {
		return err
	}
	sum := sha256.Sum256(gz.Bytes())
	m.ItemsSHA256 = hex.EncodeToString(sum[:])
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, ItemsFile), gz.Bytes()); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, ManifestFile), data); err != nil {
		return err
	}
	h := sha256.Sum256(data)
	m.hash = hex.EncodeToString(h[:])
	return nil
}

// Load reads the manifest in dir, draws its stencils again and checks that they and the items
// are what the manifest says.
func Load(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("campaign manifest: %w", err)
	}
	m := &Manifest{dir: dir}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%s: field \"format\" is %q; this smart reads %q", path, m.Format, Format)
	}
	if err := m.Spec.Check(); err != nil {
		return nil, fmt.Errorf("%s: field \"spec\": %w", path, err)
	}
	h := sha256.Sum256(data)
	m.hash = hex.EncodeToString(h[:])
	byID := map[string]*smart.Stencil{}
	for i, e := range m.Entries {
		st, err := e.stencil(m.Spec.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: stencils[%d]: %w", path, i, err)
		}
		if st.ID() != e.ID {
			return nil, fmt.Errorf("%s: stencils[%d] (%s): the generator now draws stencil %s, not %s: this smart cannot run the manifest; use the smart that wrote it (%s)", path, i, e.Name, st.ID(), e.ID, m.Tool)
		}
		if byID[e.ID] != nil {
			return nil, fmt.Errorf("%s: stencils[%d]: stencil %s is listed twice", path, i, e.ID)
		}
		byID[e.ID] = st
		m.stencils = append(m.stencils, st)
	}
	gz, err := os.ReadFile(filepath.Join(dir, ItemsFile))
	if err != nil {
		return nil, fmt.Errorf("campaign manifest: %w", err)
	}
	if sum := sha256.Sum256(gz); hex.EncodeToString(sum[:]) != m.ItemsSHA256 {
		return nil, fmt.Errorf("%s: its SHA-256 is not the items_sha256 of %s: the items were changed; restore them", filepath.Join(dir, ItemsFile), path)
	}
	if m.items, err = readItems(filepath.Join(dir, ItemsFile), gz, byID); err != nil {
		return nil, err
	}
	// Items come stencil by stencil, in the manifest's order and numbers.
	at := 0
	for i, e := range m.Entries {
		for k := 0; k < e.Items; k++ {
			if at+k >= len(m.items) || m.items[at+k].Stencil != m.stencils[i] {
				return nil, fmt.Errorf("%s: the items of stencil %s are not the %d of stencils[%d] in its place", filepath.Join(dir, ItemsFile), e.Name, e.Items, i)
			}
		}
		at += e.Items
	}
	if at != len(m.items) {
		return nil, fmt.Errorf("%s: %d items, where the stencils of %s have %d", filepath.Join(dir, ItemsFile), len(m.items), path, at)
	}
	return m, nil
}

func readItems(path string, gz []byte, byID map[string]*smart.Stencil) ([]Item, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var items []Item
	err = csvfile.Read(path, zr, itemsHeader, func(line int, rec []string) error {
		bad := func(err error) error { return fmt.Errorf("%s:%d: %w", path, line, err) }
		di, err := dataset.ParseItem(rec[0], rec[1], rec[2], byID)
		if err != nil {
			return bad(err)
		}
		di.Invalid = rec[5]
		it := Item{Item: di, Origin: rec[3]}
		if it.Origin != "uniform" && it.Origin != "predicted" {
			return bad(fmt.Errorf("column origin: %q is neither uniform nor predicted", rec[3]))
		}
		if rec[4] != "" {
			if it.PredictedMs, err = strconv.ParseFloat(rec[4], 64); err != nil || !(it.PredictedMs > 0) {
				return bad(fmt.Errorf("column predicted_ms: %q is not a positive time", rec[4]))
			}
		}
		items = append(items, it)
		return nil
	})
	return items, err
}

// measuredIn refuses data set dir, of plan, unless it was measured from m, saying from what:
// another manifest (none of m's stencils), m before an edit (m's stencils: the items or spec
// changed, or m was drawn again with other settings or another build), or either (some).
func (m *Manifest) measuredIn(dir string, plan *dataset.Plan) error {
	if plan == nil || plan.Manifest == "" { // smart bench's plan names no manifest
		return fmt.Errorf("%s is not a campaign data set: it was measured from no manifest", dir)
	}
	if plan.Manifest == m.hash {
		return nil
	}
	ids := make([]string, len(m.Entries))
	for i, e := range m.Entries {
		ids[i] = e.ID
	}
	slices.Sort(ids)
	common := 0
	for _, id := range plan.Stencils {
		if _, ok := slices.BinarySearch(ids, id); ok {
			common++
		}
	}
	this := fmt.Sprintf("manifest %.12s", m.hash)
	if m.dir != "" {
		this = fmt.Sprintf("the manifest in %s (%.12s)", m.dir, m.hash)
	}
	switch {
	case slices.Equal(plan.Stencils, ids):
		return fmt.Errorf("%s was measured from manifest %.12s, with the same %d stencils as %s: the manifest was edited after measuring began (or drawn again with other settings or another smart); restore it, or measure into another directory",
			dir, plan.Manifest, len(ids), this)
	case common == 0:
		return fmt.Errorf("%s was measured from another manifest (%.12s), none of whose %d stencils is among the %d of %s: give that manifest, or measure this one into another directory",
			dir, plan.Manifest, len(plan.Stencils), len(ids), this)
	}
	are := "are"
	if common == 1 {
		are = "is"
	}
	return fmt.Errorf("%s was measured from manifest %.12s, %d of whose %d stencils %s among the %d of %s: another manifest, or this one edited after measuring began; give the manifest it was measured from, or measure into another directory",
		dir, plan.Manifest, common, len(plan.Stencils), are, len(ids), this)
}

// Progress counts the manifest's stencils of which rows hold every variant (done) and any
// variant (started).
func (m *Manifest) Progress(rows []smart.Measurement) (done, started int) {
	have := map[string]bool{}
	for _, r := range rows {
		have[r.StencilID+"|"+r.OC.String()+"|"+r.Setting.String()] = true
	}
	at := 0
	for _, e := range m.Entries {
		n := 0
		for _, it := range m.items[at : at+e.Items] {
			if have[e.ID+"|"+it.OC.String()+"|"+it.Setting.String()] {
				n++
			}
		}
		at += e.Items
		if n > 0 {
			started++
		}
		if n == e.Items {
			done++
		}
	}
	return done, started
}
