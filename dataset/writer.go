package dataset

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"smart"
	"smart/generator"
	"smart/internal/atomicfile"
)

// Default sync policy of a Writer: rows reach the operating system as they are appended (a killed
// process loses at most the row being written) and the disk every SyncRows rows or SyncInterval
// (a crashed machine loses at most that much).
const (
	DefaultSyncRows     = 256
	DefaultSyncInterval = 2 * time.Second
)

// Writer appends rows to a data set. It is not safe for concurrent use.
type Writer struct {
	dir  string
	meta Meta
	cols columns
	f    *os.File
	// done holds the variant (Key) of every row with the origin (source and device) of the
	// first; also the rows of a variant held already from another origin (a mixed data set), by
	// Key and origin. A run or an import into a data set of one origin never fills also.
	done    map[string]string
	also    map[string]struct{}
	origins map[[2]string]string // each origin once (by source and device), shared by done's values

	buf bytes.Buffer
	csv *csv.Writer

	SyncRows     int           // fsync after this many rows; 0 means DefaultSyncRows
	SyncInterval time.Duration // or after this long; 0 means DefaultSyncInterval
	unsynced     int
	lastSync     time.Time
}

// checkNew refuses a dir that Create would refuse: one holding a data set, or anything else.
func checkNew(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, MetaFile)); err == nil {
		return fmt.Errorf("%s already holds a data set (it has %s); choose another directory", dir, MetaFile)
	}
	if _, err := os.Stat(filepath.Join(dir, RowsFile)); err == nil {
		return fmt.Errorf("%s has %s but no %s, which says what its rows are: restore %[3]s, or choose another directory", dir, RowsFile, MetaFile)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		// A data set's files would be mixed with someone else's.
		return fmt.Errorf("%s is not empty and holds no data set (%s, ...); choose a new directory", dir, entries[0].Name())
	}
	return nil
}

// CheckNew reports, before a long run, whether Create can start a data set in dir: dir holds
// nothing yet, and exists and takes new files or can be created. It changes nothing.
func CheckNew(dir string) error {
	if err := checkNew(dir); err != nil {
		return err
	}
	if err := atomicfile.CheckDir(dir); err != nil {
		return fmt.Errorf("creating data set: %w", err)
	}
	return nil
}

// Create starts a new data set in dir (created if missing). It refuses a directory that already
// holds one. Format, Created and Tool are filled in when empty.
func Create(dir string, meta Meta) (*Writer, error) {
	if err := CheckNew(dir); err != nil {
		return nil, err
	}
	if meta.Format == "" {
		meta.Format = Format
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC().Truncate(time.Second)
	}
	if meta.Tool == "" {
		meta.Tool = ToolVersion()
	}
	if meta.Format != Format {
		return nil, fmt.Errorf("creating %s: format %q; this version of smart writes %q", dir, meta.Format, Format)
	}
	if err := meta.check(); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data set: %w", err)
	}
	// meta.json first: a directory with it is a data set that Resume can complete.
	if err := writeMeta(dir, meta); err != nil {
		return nil, err
	}
	w, _, err := Resume(dir)
	return w, err
}

// Resume opens an existing data set for appending. A torn last line of rows.csv (see Torn) is
// cut off and returned; the keys of the rows present are loaded so callers can skip them. A
// missing rows.csv (a Create that was interrupted) is started afresh.
func Resume(dir string) (*Writer, *Torn, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return nil, nil, err
	}
	cols, err := newColumns(meta.Format, meta.Params)
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(dir, RowsFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := atomicfile.Write(path, []byte(joinComma(columnsOf(meta.Format, meta.Params))+"\n")); err != nil {
			return nil, nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := lockRows(dir, f); err != nil {
		f.Close()
		return nil, nil, err
	}
	w := &Writer{dir: dir, meta: meta, cols: cols, done: map[string]string{}, also: map[string]struct{}{}, origins: map[[2]string]string{}}
	torn, err := scanRows(path, meta.Format, meta.Params, func(m smart.Measurement) error {
		w.add(Key(m), m)
		return nil
	})
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if torn != nil {
		if err := f.Truncate(torn.Offset); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("cutting the torn line %d off %s: %w", torn.Line, path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	w.f = f
	w.csv = csv.NewWriter(&w.buf)
	w.lastSync = time.Now()
	return w, torn, nil
}

// lockRows locks f, the rows.csv of the data set dir. Two runs appending to one data set would
// each skip only their own rows and write the other's again: the second is refused while the
// first holds the lock (until it closes or dies).
func lockRows(dir string, f *os.File) error {
	if err := lockFile(f); err != nil {
		return fmt.Errorf("%s is being written by another run (%w); wait for it to end or choose another directory", dir, err)
	}
	return nil
}

// CheckOpen reports, before a long run (drawing the settings takes minutes), whether OpenWriter
// would open dir for a run described by meta, and whether dir holds that run already. It refuses
// what OpenWriter refuses: a directory that holds something else (Create's check), a data set
// started differently (CheckRun), one another run is writing, and one whose rows.csv is damaged
// (read whole, as a resume reads it). It changes nothing.
func CheckOpen(dir string, meta Meta) (exists bool, err error) {
	if exists, err = CheckRun(dir, meta); err != nil || !exists {
		if err == nil {
			err = CheckNew(dir)
		}
		return exists, err
	}
	path := filepath.Join(dir, RowsFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) { // a Create that was interrupted: Resume starts it afresh
		return true, nil
	}
	if err != nil {
		return true, err
	}
	defer f.Close() // and with it the lock
	if err := lockRows(dir, f); err != nil {
		return true, err
	}
	_, _, err = Scan(dir, func(smart.Measurement) error { return nil })
	return true, err
}

// OpenWriter resumes the data set in dir when there is one and it was started with the same
// plan, shard, parameters, sources and devices as meta; otherwise it creates one. A data set
// started differently is an error, so two runs never mix in one directory by mistake.
func OpenWriter(dir string, meta Meta) (*Writer, *Torn, error) {
	exists, err := CheckRun(dir, meta)
	if err != nil {
		return nil, nil, err
	}
	if !exists {
		w, err := Create(dir, meta)
		return w, nil, err
	}
	return Resume(dir)
}

// sameRun reports how a new run's meta differs from the one a data set was started with. Device
// UUIDs may differ: the same model with the same driver measures the same way. The analytic
// model's constants must be the same where the data set recorded them; one written before they
// were resumes (its constants stay unknown).
func sameRun(old, cur Meta) error {
	dev := func(ds []Device) []Device {
		out := make([]Device, len(ds))
		for i, d := range ds {
			out[i] = Device{GPU: d.GPU, Name: d.Name, Driver: d.Driver, CUDA: d.CUDA}
		}
		return out
	}
	switch {
	case !reflect.DeepEqual(old.Sources, cur.Sources):
		return fmt.Errorf("its source is %v, now %v", old.Sources, cur.Sources)
	case !reflect.DeepEqual(dev(old.Devices), dev(cur.Devices)):
		return fmt.Errorf("its device is %v, now %v", dev(old.Devices), dev(cur.Devices))
	}
	for i, d := range old.Devices { // as many as cur's, each of the same GPU
		if was, now := d.Constants, cur.Devices[i].Constants; was.Origin != "" && !was.Same(now) {
			return fmt.Errorf("it was simulated with %s, now with %s", was, now)
		}
	}
	switch {
	case !reflect.DeepEqual(old.Params, cur.Params):
		return fmt.Errorf("its parameter columns are %v, now %v", old.Params, cur.Params)
	case !reflect.DeepEqual(old.Shard, cur.Shard):
		return fmt.Errorf("it is %s, now %s", shardText(old.Shard), shardText(cur.Shard))
	}
	switch {
	case old.Plan == nil && cur.Plan == nil:
		return nil
	case cur.Plan == nil:
		return errors.New("it was measured to a sampling plan; a tuning record needs a directory of its own")
	case old.Plan == nil:
		return errors.New("it has no sampling plan (a tuning record or an import); a planned measurement needs a directory of its own")
	}
	d := old.Plan.diff(*cur.Plan)
	if d == nil {
		return nil
	}
	if old.Plan.Manifest != "" && old.Plan.Manifest != cur.Plan.Manifest {
		return fmt.Errorf("its %s is %s, now %s: the manifest changed after measuring began (restore it, or measure into another directory)", d.what, d.a, d.b)
	}
	return fmt.Errorf("its %s: %s, now %s", d.what, d.a, d.b)
}

// Meta returns the data set's description.
func (w *Writer) Meta() Meta { return w.meta }

// Dir returns the data set's directory.
func (w *Writer) Dir() string { return w.dir }

// Len is the number of rows in the data set.
func (w *Writer) Len() int { return len(w.done) + len(w.also) }

// Has reports whether the data set holds a row with m's key (GPU, stencil or kernel, OC,
// setting), of whatever source and device: a run asks whether a variant is done.
func (w *Writer) Has(m smart.Measurement) bool {
	_, ok := w.done[Key(m)]
	return ok
}

// holds reports whether the data set holds the row m: a row of its key, source and device. A
// row of its key from another source or device is another row (a merge with AllowMixed keeps
// both).
func (w *Writer) holds(key string, m smart.Measurement) bool {
	first, ok := w.done[key]
	if !ok {
		return false
	}
	o := w.origin(m)
	if first == o {
		return true
	}
	_, ok = w.also[key+"|"+o]
	return ok
}

// origin is origin(m), made once for each source and device.
func (w *Writer) origin(m smart.Measurement) string {
	k := [2]string{string(m.Source), m.Device}
	o, ok := w.origins[k]
	if !ok {
		o = origin(m)
		w.origins[k] = o
	}
	return o
}

// add records the row m, whose Key is key, as held.
func (w *Writer) add(key string, m smart.Measurement) {
	o := w.origin(m)
	switch first, ok := w.done[key]; {
	case !ok:
		w.done[key] = o
	case first != o:
		w.also[key+"|"+o] = struct{}{}
	}
}

// AddStencil writes st to stencils/ unless it is there already.
func (w *Writer) AddStencil(st *smart.Stencil) error {
	dir := filepath.Join(w.dir, StencilsDir)
	path := filepath.Join(dir, st.ID()+".json")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := generator.WriteFile(path, st); err != nil {
		return fmt.Errorf("storing stencil %s: %w", st.Name, err)
	}
	return nil
}

// Append writes rows in one write, so that a kill tears at most one line. A row the data set
// holds already (its key, source and device), or whose source the data set does not declare, is
// an error and nothing is written.
func (w *Writer) Append(rows ...smart.Measurement) error {
	if w.f == nil {
		return errors.New("appending to a closed data set")
	}
	w.buf.Reset()
	keys := make([]string, len(rows))
	for i, m := range rows {
		if !w.meta.hasSource(m.Source) {
			return fmt.Errorf("a %q row cannot go into a data set of %v rows", m.Source, w.meta.Sources)
		}
		keys[i] = Key(m)
		dup := w.holds(keys[i], m)
		for j := 0; j < i && !dup; j++ {
			dup = keys[j] == keys[i] && rows[j].Source == m.Source && rows[j].Device == m.Device
		}
		if dup {
			return fmt.Errorf("%s is already in %s", describe(m), w.dir)
		}
		rec, err := w.cols.encode(m)
		if err != nil {
			return fmt.Errorf("%s: %w", describe(m), err)
		}
		w.csv.Write(rec)
	}
	w.csv.Flush()
	if err := w.csv.Error(); err != nil {
		return err
	}
	if _, err := w.f.Write(w.buf.Bytes()); err != nil {
		return fmt.Errorf("appending to %s: %w", w.f.Name(), err)
	}
	for i, k := range keys {
		w.add(k, rows[i])
	}
	w.unsynced += len(rows)
	if w.unsynced >= cmp.Or(w.SyncRows, DefaultSyncRows) || time.Since(w.lastSync) >= cmp.Or(w.SyncInterval, DefaultSyncInterval) {
		return w.Sync()
	}
	return nil
}

// describe names a variant in messages.
func describe(m smart.Measurement) string {
	id := m.StencilID
	if id == "" {
		id = "kernel " + m.Kernel
	} else {
		id = "stencil " + id
	}
	return fmt.Sprintf("%s %s %s on %s", id, m.OC, m.Setting, m.GPUName())
}

// Sync makes the rows appended so far durable.
func (w *Writer) Sync() error {
	if w.f == nil {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", w.f.Name(), err)
	}
	w.unsynced, w.lastSync = 0, time.Now()
	return nil
}

// Close syncs and closes rows.csv.
func (w *Writer) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}
