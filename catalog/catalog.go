// Package catalog loads, validates and resolves the GPU catalogue: the facts and prices of the
// GPUs smart knows (data/gpus.json, embedded in the binary), optionally merged with a user's
// own file, and looked up by name or alias.
//
// A Catalog is an immutable value: Load and Merge return new ones, and lookups return copies,
// so one catalogue can be shared by concurrent evaluators.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"smart"
	"smart/data"
	"smart/internal/jsonerr"
)

// Format is the version tag of a catalogue file.
const Format = "smart-gpus/1"

// EmbeddedFile names the embedded catalogue in error messages.
const EmbeddedFile = "data/gpus.json (embedded)"

// MaxFileBytes bounds a catalogue file, as smart.MaxFileBytes bounds a stencil file: the
// embedded catalogue, every GPU smart knows with its sources, is about 220 kB, so a larger file
// is not a catalogue, and reading it whole (or an endless stream) would only cost memory before
// the error.
const MaxFileBytes = 1 << 20

// Catalog is a validated set of GPUs with unique names and aliases.
type Catalog struct {
	gpus  []smart.GPU
	index map[string]int // normalised name or alias -> position in gpus
}

// file is the JSON form of a catalogue file.
type file struct {
	Format string            `json:"format"`
	About  string            `json:"about,omitempty"`
	GPUs   []json.RawMessage `json:"gpus"`
}

// Default returns the catalogue embedded in the binary.
func Default() (*Catalog, error) { return embedded() }

// embedded parses the embedded catalogue once a process: a Catalog never changes once made
// (Merge returns a new one, and every GPU leaves it as a copy), so its callers can share one,
// and a command that looks GPUs up in several places pays for the 220 kB of JSON once.
var embedded = sync.OnceValues(func() (*Catalog, error) {
	c, err := (&Catalog{}).Merge(data.GPUs(), EmbeddedFile)
	if err != nil {
		return nil, fmt.Errorf("the embedded GPU catalogue is broken (a bug in this build): %w", err)
	}
	return c, nil
})

// Load returns the embedded catalogue merged with the user's file at path; an empty path
// gives the embedded catalogue alone.
func Load(path string) (*Catalog, error) {
	c, err := Default()
	if err != nil || path == "" {
		return c, err
	}
	b, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("GPU catalogue file %s: %w", path, err)
	}
	return c.Merge(b, path)
}

// readFile reads at most MaxFileBytes of the file at path, as smart.ReadStencil reads a stencil
// file. An error of the file system is its *fs.PathError's own, the path being the caller's to
// name.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, bare(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	switch {
	case err != nil:
		return nil, bare(err)
	case len(b) > MaxFileBytes:
		return nil, fmt.Errorf("the file is over %d bytes (1 MiB), more than a catalogue needs (the embedded one, every GPU smart knows, is %d bytes): it is not a GPU catalogue file", MaxFileBytes, len(data.GPUs()))
	}
	return b, nil
}

// bare strips the operation and path off a file system error (their "open FILE: "), keeping the
// cause it wraps, so that errors.Is(err, fs.ErrNotExist) still holds.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Merge returns a new catalogue with the GPUs of a catalogue file (named name in errors) merged
// over c. An entry whose name resolves to a GPU of c overrides that GPU field by field: the
// fields it gives replace the old ones, its aliases and sources are added to the old ones, and every field
// it changes must cite a source (its own key in "sources", or "*" for all it changes). Any other
// entry is a new GPU and must be complete, but for the limits an NVIDIA GPU's compute capability
// fixes (shared memory, registers, threads and blocks per SM and per block, constant memory, the
// warp) and its architecture: where it leaves them out (0 or empty) they are the Programming
// Guide's for its capability, each citing GuideSource. Every entry must pass Validate, and an
// NVIDIA one of a compute capability the CUDA C++ Programming Guide's table covers must have
// that capability's per-SM and per-block limits and architecture. The file must hold an object with
// "format" and "gpus" (an empty list adds nothing). c itself is not changed.
func (c *Catalog) Merge(b []byte, name string) (*Catalog, error) {
	var fp *file // nil: the file holds null
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fp); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field == "" {
			// The list smart gpus --json prints is the usual slip.
			return nil, fmt.Errorf("%s: %w; a catalogue file is an object, {\"format\": %q, \"gpus\": [...]}, as data/gpus.json", name, jsonerr.Describe(err), Format)
		}
		return nil, fmt.Errorf("%s: %w", name, jsonerr.Describe(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: invalid JSON: extra data after the catalogue object", name)
	}
	if fp == nil {
		return nil, fmt.Errorf("%s: the file holds null, not a catalogue; a catalogue file is an object, {\"format\": %q, \"gpus\": [...]}, as data/gpus.json", name, Format)
	}
	f := *fp
	if f.Format != Format {
		return nil, fmt.Errorf("%s: field \"format\" is %q; a GPU catalogue file starts with \"format\": %q", name, f.Format, Format)
	}
	if f.GPUs == nil {
		// Without it the file would add nothing, and say nothing of it: a misspelt key
		// is refused as unknown, but a file of "format" alone would pass.
		return nil, fmt.Errorf("%s: field \"gpus\" is missing or null; give the GPUs to add or override as \"gpus\": [{\"name\": ...}, ...] (an empty list for none)", name)
	}
	out := &Catalog{gpus: slices.Clone(c.gpus), index: maps.Clone(c.index)}
	if out.index == nil {
		out.index = map[string]int{}
	}
	seen := map[string]string{} // normalized name -> where in this file
	for i, raw := range f.GPUs {
		where := fmt.Sprintf("gpus[%d]", i)
		g, err := out.mergeOne(raw, name, where)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[normalize(g.Name)]; dup {
			// An entry overrides the catalogue it is merged over, not another of its file.
			return nil, &FieldError{File: name, GPU: g.Name, Field: "name", Problem: fmt.Sprintf("%s names the GPU of %s again; give each GPU once", where, first)}
		}
		seen[normalize(g.Name)] = where
		if err := out.put(g, name, where); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeOne decodes one entry of a file, overlaying it on the GPU it names if there is one, and
// validates the result.
func (c *Catalog) mergeOne(raw json.RawMessage, file, where string) (smart.GPU, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return smart.GPU{}, fmt.Errorf("%s: %s: %w", file, where, jsonerr.Describe(err))
	}
	var name string
	if err := json.Unmarshal(obj["name"], &name); err != nil || name == "" {
		return smart.GPU{}, &FieldError{File: file, GPU: where, Field: "name", Problem: "is missing or not a string; give each GPU a name"}
	}
	for k := range obj {
		if !slices.Contains(fieldNames, k) {
			return smart.GPU{}, &FieldError{File: file, GPU: name, Field: k, Problem: "is not a GPU field; the fields are " + fmt.Sprint(fieldNames)}
		}
	}
	// A new GPU is decoded from the entry as written; only an override, overlaid on the GPU it
	// names, needs writing out again (every smart command loads the embedded catalogue).
	full := []byte(raw)
	i, override := c.index[normalize(name)]
	if override {
		merged, err := overlay(c.gpus[i], obj, file)
		if err != nil {
			return smart.GPU{}, err
		}
		if full, err = json.Marshal(merged); err != nil {
			return smart.GPU{}, fmt.Errorf("%s: GPU %q: %w", file, name, err)
		}
	}
	var g smart.GPU
	dec := json.NewDecoder(bytes.NewReader(full))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return smart.GPU{}, &FieldError{File: file, GPU: name, Field: typ.Field, Problem: fmt.Sprintf("has a JSON %s where %s is expected", typ.Value, jsonerr.Expected(typ.Type))}
		}
		return smart.GPU{}, fmt.Errorf("%s: GPU %q: %w", file, name, jsonerr.Describe(err))
	}
	if !override {
		fillGuideLimits(&g)
	}
	for _, check := range []func(smart.GPU) error{Validate, checkGuideLimits} {
		if err := check(g); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				fe.File = file
			}
			return smart.GPU{}, err
		}
	}
	return g, nil
}

// overlay applies the fields of obj over base. Sources are merged key by key; each other field
// obj gives must be cited by obj's own sources.
func overlay(base smart.GPU, obj map[string]json.RawMessage, file string) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	var newSrc map[string]string
	if raw, ok := obj["sources"]; ok {
		if err := json.Unmarshal(raw, &newSrc); err != nil {
			return nil, &FieldError{File: file, GPU: base.Name, Field: "sources", Problem: "must map field names to the documents they come from"}
		}
	}
	sources := maps.Clone(base.Sources)
	if sources == nil {
		sources = map[string]string{}
	}
	for k, v := range obj {
		switch k {
		case "sources", "name":
			// The entry keeps its canonical name even when the override names it by an alias.
			continue
		case "aliases":
			// Names are not measured numbers and need no citation. They are added to the
			// catalogue's: an entry naming a GPU as a cluster does must not lose the name NVML
			// reports, by which smart finds the GPU it runs on.
			var more []string
			if err := json.Unmarshal(v, &more); err != nil {
				return nil, &FieldError{File: file, GPU: base.Name, Field: k, Problem: "must be a list of names"}
			}
			// Checked here, before they join the catalogue's, so that the index is the file's.
			for i, a := range more {
				if p := aliasProblem(a); p != "" {
					return nil, &FieldError{File: file, GPU: base.Name, Field: fmt.Sprintf("aliases[%d]", i), Problem: p}
				}
			}
			all := slices.Clone(base.Aliases)
			for _, a := range more {
				if !slices.ContainsFunc(all, func(b string) bool { return normalize(a) == normalize(b) }) {
					all = append(all, a)
				}
			}
			if v, err = json.Marshal(all); err != nil {
				return nil, err
			}
		case "vendor", "arch", "compute_capability":
			// Labels are not measured numbers; they need no citation.
		default:
			src := newSrc[k]
			if src == "" {
				src = newSrc["*"]
			}
			if src == "" {
				return nil, &FieldError{File: file, GPU: base.Name, Field: k, Problem: fmt.Sprintf("overrides the catalogue value but cites no source; add \"sources\": {%q: \"where the number comes from\"}", k)}
			}
			sources[k] = src
		}
		out[k] = v
	}
	for k, v := range newSrc {
		if k != "*" {
			sources[k] = v
		}
	}
	sb, err := json.Marshal(sources)
	if err != nil {
		return nil, err
	}
	out["sources"] = sb
	return out, nil
}

// put adds or replaces g, checking that its name and aliases resolve to it alone.
func (c *Catalog) put(g smart.GPU, file, where string) error {
	pos, replace := c.index[normalize(g.Name)]
	if !replace {
		pos = len(c.gpus)
		c.gpus = append(c.gpus, g)
	} else {
		// Drop the old entry's keys before adding the new entry's.
		for k, i := range c.index {
			if i == pos {
				delete(c.index, k)
			}
		}
		c.gpus[pos] = g
	}
	for _, key := range append([]string{g.Name}, g.Aliases...) {
		n := normalize(key)
		if i, taken := c.index[n]; taken && i != pos {
			return &FieldError{File: file, GPU: g.Name, Field: "aliases", Problem: fmt.Sprintf("%q already names GPU %q; names and aliases must be unique (compared ignoring case, spaces and punctuation)", key, c.gpus[i].Name)}
		}
		c.index[n] = pos
	}
	return nil
}

// GPUs returns copies of the catalogue's GPUs in catalogue order.
func (c *Catalog) GPUs() []smart.GPU {
	out := make([]smart.GPU, len(c.gpus))
	for i, g := range c.gpus {
		out[i] = clone(g)
	}
	return out
}

// Len is the number of GPUs.
func (c *Catalog) Len() int { return len(c.gpus) }

// Names returns the canonical names in catalogue order.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.gpus))
	for i, g := range c.gpus {
		out[i] = g.Name
	}
	return out
}

func clone(g smart.GPU) smart.GPU {
	g.Aliases = slices.Clone(g.Aliases)
	g.Sources = maps.Clone(g.Sources)
	if g.Price != nil {
		p := *g.Price
		g.Price = &p
	}
	return g
}

// SelectError is Select's error for a vendor or architecture no GPU has (Field "vendor" or
// "arch", with the catalogue's values in Known), or for a vendor and an architecture that no GPU
// has together (Field empty).
type SelectError struct {
	Field, Value string
	Known        []string
	Vendor, Arch string
}

// archIs reports whether query names the architecture arch: its name or one of its words.
func archIs(query, arch string) bool {
	q := normalize(query)
	return q == normalize(arch) || slices.ContainsFunc(strings.Fields(arch), func(w string) bool { return normalize(w) == q })
}

func (e *SelectError) Error() string {
	switch e.Field {
	case "vendor":
		return fmt.Sprintf("no GPU of vendor %q; the catalogue's vendors are %s", e.Value, strings.Join(e.Known, ", "))
	case "arch":
		return fmt.Sprintf("no GPU of architecture %q; the catalogue's architectures are %s", e.Value, strings.Join(e.Known, ", "))
	}
	return fmt.Sprintf("no GPU of vendor %s has architecture %s", e.Vendor, e.Arch)
}

// Select returns copies of the GPUs of vendor and of architecture arch (an empty one matches
// any), compared ignoring case, spaces and punctuation, in catalogue order; arch may be one word
// of an architecture's name ("ada" for Ada Lovelace, as NVIDIA names its boards). Where none
// matches the error is a *SelectError.
func (c *Catalog) Select(vendor, arch string) ([]smart.GPU, error) {
	var out []smart.GPU
	var vendors, arches []string
	for _, g := range c.gpus {
		if !slices.Contains(vendors, g.Vendor) {
			vendors = append(vendors, g.Vendor)
		}
		if !slices.Contains(arches, g.Arch) {
			arches = append(arches, g.Arch)
		}
		if (vendor == "" || normalize(vendor) == normalize(g.Vendor)) && (arch == "" || archIs(arch, g.Arch)) {
			out = append(out, clone(g))
		}
	}
	slices.Sort(vendors)
	slices.Sort(arches)
	switch {
	case vendor != "" && !slices.ContainsFunc(vendors, func(v string) bool { return normalize(v) == normalize(vendor) }):
		return nil, &SelectError{Field: "vendor", Value: vendor, Known: vendors}
	case arch != "" && !slices.ContainsFunc(arches, func(a string) bool { return archIs(arch, a) }):
		return nil, &SelectError{Field: "arch", Value: arch, Known: arches}
	case len(out) == 0:
		return nil, &SelectError{Vendor: vendor, Arch: arch}
	}
	return out, nil
}
