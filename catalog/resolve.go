package catalog

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"smart"
)

// NotFoundError is returned by Lookup for a name that is no GPU's name or alias. Its message
// names the close matches, or else every GPU; how to list or extend the catalogue is the
// caller's to say.
type NotFoundError struct {
	Name    string
	Similar []string // canonical names of close matches, best first
	All     []string // every canonical name, for the message when nothing is close
}

func (e *NotFoundError) Error() string {
	if len(e.Similar) > 0 {
		return fmt.Sprintf("unknown GPU %q; did you mean %s?", e.Name, strings.Join(e.Similar, ", "))
	}
	return fmt.Sprintf("unknown GPU %q; the catalogue has %s", e.Name, strings.Join(e.All, ", "))
}

// normalize folds a name for lookups: lower case, letters and digits only, so "NVIDIA A100-PCIE-40GB",
// "nvidia a100 pcie 40gb" and "NVIDIA_A100_PCIE_40GB" are the same key.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Lookup returns the GPU that name (its canonical name or any alias, ignoring case, spaces and
// punctuation) resolves to. An unknown name gets a *NotFoundError listing close matches.
func (c *Catalog) Lookup(name string) (smart.GPU, error) {
	if i, ok := c.find(name); ok {
		return clone(c.gpus[i]), nil
	}
	return smart.GPU{}, &NotFoundError{Name: name, Similar: c.similar(name), All: c.Names()}
}

// Resolve is the canonical name of the GPU a device name (as a driver or a Kernel Tuner cache
// reports it) resolves to; ok is false where the catalogue does not know it.
func (c *Catalog) Resolve(device string) (gpu string, ok bool) {
	i, ok := c.find(device)
	if !ok {
		return "", false
	}
	return c.gpus[i].Name, true
}

// brands are the words before a model name that people write and the catalogue's names leave
// out ("NVIDIA A100", "GeForce RTX 4090", "AMD Instinct MI250X"), longest first, normalized.
var brands = []string{"nvidiageforce", "nvidiaquadro", "nvidiatesla", "amdinstinct", "amdradeon",
	"geforce", "instinct", "nvidia", "quadro", "radeon", "tesla", "amd"}

// find is the index of the GPU name resolves to: a name or alias, or one after a brand.
func (c *Catalog) find(name string) (int, bool) {
	q := normalize(name)
	if i, ok := c.index[q]; ok {
		return i, true
	}
	for _, b := range brands {
		if rest, ok := strings.CutPrefix(q, b); ok && rest != "" {
			if i, ok := c.index[rest]; ok {
				return i, true
			}
		}
	}
	return 0, false
}

// similar returns the canonical names whose name or an alias contains the query, is contained
// in it, or is within a small edit distance of it, closest first.
func (c *Catalog) similar(name string) []string {
	q := normalize(name)
	if q == "" {
		return nil
	}
	best := map[int]int{} // gpu index -> smallest distance of any of its keys
	for key, i := range c.index {
		d := levenshtein(q, key)
		ok := d <= editBudget(len(q)) || len(q) >= 2 && strings.Contains(key, q) || len(key) >= 3 && strings.Contains(q, key)
		if !ok {
			continue
		}
		if cur, seen := best[i]; !seen || d < cur {
			best[i] = d
		}
	}
	idx := make([]int, 0, len(best))
	for i := range best {
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b int) int {
		if best[a] != best[b] {
			return best[a] - best[b]
		}
		return a - b
	})
	idx = idx[:min(len(idx), 6)]
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = c.gpus[i].Name
	}
	return out
}

// editBudget is how many edits a query of n letters and digits may be from a name to be
// suggested: short names differ in a letter or two from many others.
func editBudget(n int) int {
	switch {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return n / 4
}

// levenshtein is the edit distance between a and b (bytes; keys are ASCII after normalize).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
