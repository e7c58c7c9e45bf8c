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

// LoadItems reads the items saved in dir, resolving stencil IDs among stencils. It returns nil
// and no error when none were saved.
func LoadItems(dir string, stencils []*smart.Stencil) ([]Item, error) {
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
	return items, err
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
