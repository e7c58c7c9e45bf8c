package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"smart"
	"smart/internal/atomicfile"
	"smart/internal/csvfile"
)

// ItemsFile lists a run's work items: the settings its plan drew, saved when the run starts so
// that a resumed run neither draws them again (generating every search space takes minutes for
// hundreds of stencils) nor depends on the search space being unchanged since.
const ItemsFile = "items.csv"

var itemsHeader = []string{"stencil_id", "oc", "setting", "invalid"}

// SaveItems writes the run's items to dir/items.csv atomically.
func SaveItems(dir string, items []Item) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(itemsHeader)
	for _, it := range items {
		w.Write([]string{it.Stencil.ID(), it.OC.String(), it.Setting.String(), oneLine(it.Invalid)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ItemsFile), b.Bytes())
}

// countItems counts the items saved in dir; 0 where none were.
func countItems(dir string) (int, error) {
	n := 0
	_, err := csvfile.ReadFile(filepath.Join(dir, ItemsFile), itemsHeader, func(int, []string) error {
		n++
		return nil
	})
	return n, err
}

// LoadItems reads the items saved in dir, resolving stencil IDs among stencils, and checks them
// against plan for the stencils of shard (nil: all). It returns nil and no error when none were
// saved.
func LoadItems(dir string, stencils []*smart.Stencil, plan *Plan, shard *Shard) ([]Item, error) {
	byID := make(map[string]*smart.Stencil, len(stencils))
	for _, st := range stencils {
		byID[st.ID()] = st
	}
	path := filepath.Join(dir, ItemsFile)
	var items []Item
	_, err := csvfile.ReadFile(path, itemsHeader, func(line int, rec []string) error {
		it, err := ParseItem(rec[0], rec[1], rec[2], byID)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		it.Invalid = rec[3]
		items = append(items, it)
		return nil
	})
	if err != nil || items == nil {
		return items, err
	}
	if err := plan.checkItems(items, shard); err != nil {
		// Written whole (atomically), the file was cut or edited since: a run resumed from it
		// would call the missing variants done.
		return nil, fmt.Errorf("%s does not hold the plan's settings: %w; restore it, or delete it to draw them again", path, err)
	}
	return items, nil
}

// checkItems reports the first stencil of shard for which items do not hold what p draws:
// each OC's settings, one to Samples of them (an OC without a valid setting has one invalid
// item), or each explicit setting.
func (p *Plan) checkItems(items []Item, shard *Shard) error {
	if p == nil || p.Manifest != "" {
		return nil
	}
	count := map[string]int{} // by stencil ID and OC; by stencil ID alone for explicit settings
	for _, it := range items {
		id := it.Stencil.ID()
		if !p.InShard(id, shard) {
			return fmt.Errorf("stencil %s is not among the stencils of this run", id)
		}
		if len(p.Settings) == 0 {
			id += " " + it.OC.String()
		}
		count[id]++
	}
	for _, id := range p.Stencils {
		switch {
		case !p.InShard(id, shard):
		case len(p.Settings) > 0 && count[id] != len(p.Settings):
			return fmt.Errorf("it lists %d settings of stencil %s, not the %d given", count[id], id, len(p.Settings))
		case len(p.Settings) == 0:
			for _, oc := range p.OCs {
				if n := count[id+" "+oc.String()]; n < 1 || n > p.Samples {
					return fmt.Errorf("it lists %d settings of stencil %s under %s, not 1 to %d", n, id, oc, p.Samples)
				}
			}
		}
	}
	return nil
}

// ParseItem reads an item's stencil ID, OC and setting as written in a file; the error names
// the column. The stencil is looked up in byID.
func ParseItem(id, oc, setting string, byID map[string]*smart.Stencil) (Item, error) {
	st, ok := byID[id]
	if !ok {
		return Item{}, fmt.Errorf("column stencil_id: %s is not one of the run's stencils", id)
	}
	c, err := smart.ParseCombination(oc)
	if err != nil {
		return Item{}, fmt.Errorf("column oc: %w", err)
	}
	set, err := smart.ParseSetting(setting)
	if err != nil {
		return Item{}, fmt.Errorf("column setting: %w", err)
	}
	return Item{Stencil: st, OC: c, Setting: set}, nil
}

// CheckRun reports whether dir holds a data set, and an error when it was started differently
// from meta (another plan, shard, device or source), as OpenWriter would. It changes nothing.
func CheckRun(dir string, meta Meta) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, MetaFile)); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	old, err := ReadMeta(dir)
	if err != nil {
		return true, err
	}
	if err := sameRun(old, meta); err != nil {
		return true, fmt.Errorf("%s holds a data set started differently: %w; resume it with the same flags or choose another directory", dir, err)
	}
	return true, nil
}

// CountDone returns how many of the items the data set in dir already holds, reading it without
// changing it (a dry run), and its torn last line if any.
func CountDone(dir, gpu string, items []Item) (int, *Torn, error) {
	done := map[string]bool{}
	_, torn, err := Scan(dir, func(m smart.Measurement) error {
		done[Key(m)] = true
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	n := 0
	r := Runner{GPU: gpu}
	for _, it := range items {
		if done[Key(r.identity(it))] {
			n++
		}
	}
	return n, torn, nil
}
