package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
)

func sampleRows() []smart.Measurement {
	return []smart.Measurement{
		{StencilID: "00ab12cd34ef5678", GPU: "A100-40GB", Device: "NVIDIA A100-PCIE-40GB", OC: smart.Combination(smart.ST | smart.RT),
			Setting: smart.Setting{"bx": 32, "by": 4, "bz": 1, "shared": 1, "const": 0, "sd": 3, "sb": 64, "ufx": 1, "ufy": 1, "ufz": 2},
			Status:  smart.StatusOK, TimeMs: 0.30000000000000004, MinMs: 1e-300, MaxMs: 1.7976931348623157e308, MeanMs: 1.0 / 3, StdMs: 0, Reps: 10,
			Runs: 70, Source: smart.Measured, Readings: &smart.Readings{SMClockMHz: 1410, MemClockMHz: 1215, PowerW: 251.125, TempC: 61},
			Compiled: &smart.Compiled{RegsPerThread: 40}},
		{StencilID: "ffffffffffffffff", GPU: "A100-40GB", Device: "NVIDIA A100-PCIE-40GB", OC: 0,
			Setting: smart.Setting{"bx": 1024, "by": 1, "bz": 1, "shared": 0, "const": 1},
			Status:  smart.StatusCompileError, Error: `nvcc: "x", y; error`, Source: smart.Measured},
		{StencilID: "0000000000000001", GPU: "V100", OC: smart.Combination(smart.BM | smart.TB),
			Setting: smart.Setting{"bx": 64, "by": 2, "shared": 0, "const": 0, "ufx": 1, "ufy": 1, "bmx": 2, "bmy": 1, "tt": 4},
			Status:  smart.StatusTimeout, TimeMs: 5000, Reps: 0, Source: smart.Simulated},
		{StencilID: "0000000000000002", GPU: "V100", Setting: smart.Setting{}, Status: smart.StatusInvalid,
			Error: "BASE has no valid setting", Source: smart.Simulated},
		{StencilID: "00ab12cd34ef5678", GPU: "A100-40GB", Device: "NVIDIA A100-PCIE-40GB", OC: 0, Setting: smart.Setting{"bx": 8, "by": 2, "bz": 1, "shared": 0, "const": 0},
			Status: smart.StatusOK, TimeMs: 4.5, MinMs: 4.5, MaxMs: 4.5, MeanMs: 4.5, Reps: 1, Runs: 1, Cut: smart.CutStopped, Source: smart.Measured,
			Compiled: &smart.Compiled{RegsPerThread: 255, LocalBytesPerThread: 1024}},
		{StencilID: "00ab12cd34ef5678", GPU: "A100-40GB", Device: "NVIDIA A100-PCIE-40GB", OC: 0, Setting: smart.Setting{"bx": 8, "by": 4, "bz": 1, "shared": 0, "const": 0},
			Status: smart.StatusWrongResult, Error: "max relative error 1e-3", Source: smart.Measured, Compiled: &smart.Compiled{RegsPerThread: 32, LocalBytesPerThread: 8}},
	}
}

func TestRowRoundTrip(t *testing.T) {
	cols, err := newColumns(Format, StencilParams())
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range sampleRows() {
		rec, err := cols.encode(m)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		got, err := cols.decode(rec, "rows.csv", 2)
		if err != nil {
			t.Fatalf("row %d: %v\n%q", i, err, rec)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("row %d round trip:\n got %+v\nwant %+v", i, got, m)
		}
	}
	kcols, err := newColumns(Format, []string{"block_size_x", "read_only"})
	if err != nil {
		t.Fatal(err)
	}
	k := smart.Measurement{Kernel: "convolution_kernel", Device: "AMD Radeon PRO W6600", Setting: smart.Setting{"block_size_x": 16, "read_only": 1},
		Status: smart.StatusOK, TimeMs: 3.87174391746521, MinMs: 3.8696959018707275, MaxMs: 3.976191997528076, MeanMs: 3.8753279224038124,
		StdMs: 0.01847417436942412, Reps: 32, Source: smart.Imported}
	rec, err := kcols.encode(k)
	if err != nil {
		t.Fatal(err)
	}
	if rec[4] != "" {
		t.Errorf("kernel row has oc %q; want it empty", rec[4])
	}
	if got, err := kcols.decode(rec, "rows.csv", 2); err != nil || !reflect.DeepEqual(got, k) {
		t.Errorf("kernel row round trip: %+v, %v", got, err)
	}
	if _, err := kcols.encode(sampleRows()[0]); err == nil || !strings.Contains(err.Error(), "not a column") {
		t.Errorf("setting outside the columns: %v", err)
	}
}

// sampleMeta is the meta of a data set of sampleRows: two GPUs, measured and simulated.
func sampleMeta() Meta {
	return Meta{Sources: []smart.Source{smart.Measured, smart.Simulated}, AllowMixed: true,
		Devices: []Device{{GPU: "A100-40GB", Name: "NVIDIA A100-PCIE-40GB"}, {GPU: "V100", Name: "analytic"}}, Params: StencilParams()}
}

func TestRowsFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	meta := sampleMeta()
	w, err := Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	rows := sampleRows()
	multi := rows[0]
	multi.StencilID, multi.Error = "0000000000000003", "line one\nline two\r\n\tline three"
	rows = append(rows, multi)
	for _, m := range rows {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Append(rows[1]); err == nil {
		t.Error("a duplicate row was appended")
	}
	bad := rows[0]
	bad.StencilID, bad.Source = "0000000000000009", smart.Predicted
	if err := w.Append(bad); err == nil {
		t.Error("a row of an undeclared source was appended")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, torn, err := readRows(dir)
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	rows[len(rows)-1].Error = "line one line two line three" // rows are one line each
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("file round trip:\n got %+v\nwant %+v", got, rows)
	}
	data, err := os.ReadFile(filepath.Join(dir, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(rows)+1 {
		t.Errorf("%d lines for %d rows and a header", len(lines), len(rows))
	}
	if want := strings.Join(columnsOf(Format, StencilParams()), ","); lines[0] != want {
		t.Errorf("header %q\nwant %q", lines[0], want)
	}
	if want := "stencil_id,kernel,gpu,device,oc,bx,by,bz,shared,const,sd,sb,ufx,ufy,ufz,bmx,bmy,bmz,cmx,cmy,cmz,tt,status,error,time_ms,min_ms,max_ms,mean_ms,std_ms,reps,source,sm_clock_mhz,mem_clock_mhz,power_w,temp_c,runs,cut,regs,local_bytes"; lines[0] != want {
		t.Errorf("header %q\nwant %q", lines[0], want)
	}
}

// TestOlderFormats: a data set of an older format is read and appended to in its own format:
// its header and earlier bytes stay as they were, the compiler's facts of new rows are left out
// (its rows.csv has no columns for them), and FormatV1 refuses a cut row rather than lose the
// cut.
func TestOlderFormats(t *testing.T) {
	for _, tc := range []struct {
		format, old string
		fields      int // of a row
		cutRefused  bool
	}{
		{FormatV1, v1Header + "\n" + v1Row + "\n", 35, true},
		{FormatV2, v1Header + ",runs,cut\n" + v1Row + ",5,\n", 37, false},
	} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			writeOldDataSet(t, dir, tc.format, tc.old)
			got, _, err := readRows(dir)
			if err != nil || len(got) != 1 || got[0].TimeMs != 4.858523875 || got[0].Reps != 5 || got[0].Readings.TempC != 43 || got[0].Compiled != nil {
				t.Fatalf("reading a %s data set: %+v, %v", tc.format, got, err)
			}
			w, _, err := Resume(dir)
			if err != nil {
				t.Fatal(err)
			}
			full := smart.Measurement{StencilID: "433dc349080b0b78", GPU: "H100-SXM", OC: 0, Setting: smart.Setting{"bx": 2, "by": 4, "bz": 64, "shared": 0, "const": 0},
				Status: smart.StatusOK, TimeMs: 5, MinMs: 5, MaxMs: 5, MeanMs: 5, Reps: 5, Source: smart.Measured,
				Compiled: &smart.Compiled{RegsPerThread: 40, LocalBytesPerThread: 16}}
			cut := full
			cut.Setting = smart.Setting{"bx": 4, "by": 4, "bz": 64, "shared": 0, "const": 0}
			cut.Reps, cut.Runs, cut.Cut = 1, 1, smart.CutSlow
			if err := w.Append(full); err != nil {
				t.Fatal(err)
			}
			want := 3
			switch err := w.Append(cut); {
			case tc.cutRefused && (err == nil || !strings.Contains(err.Error(), "no column")):
				t.Errorf("a cut row in a %s data set: %v; want it refused", tc.format, err)
			case !tc.cutRefused && err != nil:
				t.Errorf("a cut row in a %s data set: %v", tc.format, err)
			case !tc.cutRefused:
				want++
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, RowsFile))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if !strings.HasPrefix(string(data), tc.old) || len(lines) != want || strings.Count(lines[2], ",") != tc.fields-1 {
				t.Errorf("appended %s file:\n%s", tc.format, data)
			}
			got, _, err = readRows(dir)
			if err != nil || len(got) != want-1 {
				t.Fatalf("reading it back: %d rows, %v", len(got), err)
			}
			full.Compiled = nil
			if !reflect.DeepEqual(got[1], full) {
				t.Errorf("the appended row read back as %+v\nwant %+v (the compiler's facts left out)", got[1], full)
			}
		})
	}
}

// A data set of FormatV1 as the H100 wrote it: its header and a row.
const (
	v1Header = "stencil_id,kernel,gpu,device,oc,bx,by,bz,shared,const,sd,sb,ufx,ufy,ufz,bmx,bmy,bmz,cmx,cmy,cmz,tt,status,error,time_ms,min_ms,max_ms,mean_ms,std_ms,reps,source,sm_clock_mhz,mem_clock_mhz,power_w,temp_c"
	v1Row    = "433dc349080b0b78,,H100-SXM,NVIDIA H100 80GB HBM3,BASE,1,4,64,0,0,,,,,,,,,,,,,ok,,4.858523875,4.857544,4.858908125,4.858258425000001,0.0006194892339157569,5,measured,1980,2619,389.561,43"
)

// writeOldDataSet writes a data set of an older format, measured on the H100, with rows.csv
// as given.
func writeOldDataSet(t *testing.T, dir, format, rows string) {
	t.Helper()
	meta := Meta{Format: format, Created: time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC), Tool: "smart (devel)",
		Sources: []smart.Source{smart.Measured}, Devices: []Device{{GPU: "H100-SXM", Name: "NVIDIA H100 80GB HBM3"}}, Params: StencilParams()}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeMeta(dir, meta); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, RowsFile), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readRows reads all rows and the torn line of a data set.
func readRows(dir string) ([]smart.Measurement, *Torn, error) {
	var rows []smart.Measurement
	_, torn, err := Scan(dir, func(m smart.Measurement) error {
		rows = append(rows, m)
		return nil
	})
	return rows, torn, err
}

// TestResumeAfterKill cuts rows.csv at every byte of its last line, as a kill during the write
// would, and checks that Resume cuts exactly that line, reports it, and that appending it again
// gives the whole data set once.
func TestResumeAfterKill(t *testing.T) {
	rows := sampleRows()[:3]
	src := t.TempDir()
	w, err := Create(src, Meta{Sources: []smart.Source{smart.Measured, smart.Simulated}, AllowMixed: true,
		Devices: []Device{{GPU: "A100-40GB"}, {GPU: "V100"}}, Params: StencilParams()})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rows {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	full, err := os.ReadFile(filepath.Join(src, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	lastStart := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	meta, err := os.ReadFile(filepath.Join(src, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	for cut := lastStart + 1; cut < len(full); cut++ {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, MetaFile), meta, 0o644)
		os.WriteFile(filepath.Join(dir, RowsFile), full[:cut], 0o644)
		w, torn, err := Resume(dir)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if torn == nil || torn.Line != 4 || torn.Offset != int64(lastStart) || torn.Bytes != int64(cut-lastStart) {
			t.Fatalf("cut at %d: torn %+v; want line 4 at %d, %d bytes", cut, torn, lastStart, cut-lastStart)
		}
		if w.Len() != 2 || !w.Has(rows[1]) || w.Has(rows[2]) {
			t.Fatalf("cut at %d: %d rows done", cut, w.Len())
		}
		if err := w.Append(rows[2]); err != nil {
			t.Fatal(err)
		}
		w.Close()
		got, err := os.ReadFile(filepath.Join(dir, RowsFile))
		if err != nil || !bytes.Equal(got, full) {
			t.Fatalf("cut at %d: after resuming the file is\n%s\nwant\n%s", cut, got, full)
		}
	}
	// A whole last line with too few fields is no torn write (a row is one write with its
	// newline) but an edit: an error naming it, and the file as it was.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, MetaFile), meta, 0o644)
	edited := append(full[:lastStart+10:lastStart+10], '\n')
	os.WriteFile(filepath.Join(dir, RowsFile), edited, 0o644)
	if _, torn, err := Resume(dir); err == nil || !strings.Contains(err.Error(), "rows.csv:4: the row has") || !strings.Contains(err.Error(), "it is the last line") {
		t.Fatalf("short last line: torn %+v, %v; want an error naming line 4", torn, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, RowsFile)); !bytes.Equal(got, edited) {
		t.Fatal("Resume changed a file it refused")
	}
}

func TestCorruptFiles(t *testing.T) {
	header := strings.Join(columnsOf(Format, StencilParams()), ",") + "\n"
	good := func() string {
		cols, _ := newColumns(Format, StencilParams())
		rec, _ := cols.encode(sampleRows()[0])
		return joinComma(rec) + "\n"
	}()
	meta := `{"format":"smart-dataset/3","tool_version":"t","created":"2025-01-01T00:00:00Z","sources":["measured"],"devices":[{"gpu":"A100-40GB","name":"x"}],"params":` +
		`["bx","by","bz","shared","const","sd","sb","ufx","ufy","ufz","bmx","bmy","bmz","cmx","cmy","cmz","tt"]}`
	for _, tc := range []struct {
		name, meta, rows, want string
	}{
		{"binary", meta, "\x00\x01\x02\"\n" + good + good, "rows.csv: not a CSV file: parse error on line 1, column 4"},
		{"bare quote mid-file", meta, header + good + "a,\"b\"c,d\n" + good, "rows.csv: not a CSV file"},
		{"wrong header", meta, strings.Replace(header, "time_ms", "time", 1) + good, `rows.csv:1: header column 25 is "time" where meta.json's params call for "time_ms"`},
		{"field count mid-file", meta, header + "a,b,c\n" + good, "rows.csv:2: the row has 3 fields; the header has 39"},
		{"bad cut", meta, header + strings.Replace(good, ",70,,40,0\n", ",70,quick,40,0\n", 1), `rows.csv:2: column cut: "quick" is not a cut`},
		{"bad runs", meta, header + strings.Replace(good, ",70,,40,0\n", ",-3,,40,0\n", 1), `rows.csv:2: column runs: "-3" is not a count`},
		{"bad regs", meta, header + strings.Replace(good, ",70,,40,0\n", ",70,,forty,0\n", 1), `rows.csv:2: column regs: "forty" is not a count of registers per thread`},
		{"bad local bytes", meta, header + strings.Replace(good, ",70,,40,0\n", ",70,,40,-8\n", 1), `rows.csv:2: column local_bytes: "-8" is not a count of bytes per thread`},
		{"regs alone", meta, header + strings.Replace(good, ",70,,40,0\n", ",70,,40,\n", 1), `rows.csv:2: column regs: is "40" and local_bytes ""; the compiler's facts are both given or both empty`},
		{"bad status", meta, header + strings.Replace(good, ",ok,", ",fine,", 1) + good, `rows.csv:2: column status: "fine" is not a status`},
		{"bad time", meta, header + good + strings.Replace(good, ",0.30000000000000004,", ",-1,", 1) + good, `rows.csv:3: column time_ms: "-1" is not a non-negative number`},
		{"zero time", meta, header + good + strings.Replace(good, ",0.30000000000000004,", ",0,", 1), `rows.csv:3: column time_ms: is "0" in an ok row; an ok row has a time of at least 1e-06 ms`},
		{"denormal time", meta, header + good + strings.Replace(good, ",0.30000000000000004,", ",1e-320,", 1), `rows.csv:3: column time_ms: is "1e-320" in an ok row; an ok row has a time of at least 1e-06 ms`},
		{"Go's digit separator", meta, header + good + strings.Replace(good, ",0.30000000000000004,", ",1_000,", 1), `rows.csv:3: column time_ms: "1_000" is not a non-negative number of milliseconds`},
		{"empty oc", meta, header + strings.Replace(good, ",ST_RT,", ",,", 1), `rows.csv:2: column oc: is empty in a stencil row`},
		{"bad setting", meta, header + strings.Replace(good, "00ab12cd34ef5678,,A100-40GB,NVIDIA A100-PCIE-40GB,ST_RT,32,", "00ab12cd34ef5678,,A100-40GB,NVIDIA A100-PCIE-40GB,ST_RT,3x2,", 1) + good, `rows.csv:2: column bx: "3x2" is not an integer`},
		{"empty rows", meta, "", "rows.csv: the file is empty"},
		{"foreign version", strings.Replace(meta, "smart-dataset/3", "smart-dataset/9", 1), header, `meta.json: field "format" is "smart-dataset/9"`},
		{"meta not JSON", "{\"format\": smart", header, "meta.json: invalid JSON at byte"},
		{"meta unknown field", strings.Replace(meta, `"tool_version"`, `"tool"`, 1), header, `meta.json: "tool" is not a field of the format`},
		{"meta wrong type", strings.Replace(meta, `"params":[`, `"params":[1,`, 1), header, `meta.json: field "params" has a JSON number where a string is expected`},
		{"meta bad source", strings.Replace(meta, `["measured"]`, `["guessed"]`, 1), header, `field "sources[0]" is "guessed"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, MetaFile), []byte(tc.meta), 0o644)
			os.WriteFile(filepath.Join(dir, RowsFile), []byte(tc.rows), 0o644)
			_, _, err := Scan(dir, func(smart.Measurement) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant one containing %q", err, tc.want)
			}
			if _, _, rerr := Resume(dir); rerr == nil {
				t.Fatal("Resume accepted a corrupt data set")
			}
		})
	}
}

func TestStencilParams(t *testing.T) {
	want := []string{"bx", "by", "bz", "shared", "const", "sd", "sb", "ufx", "ufy", "ufz", "bmx", "bmy", "bmz", "cmx", "cmy", "cmz", "tt"}
	if got := StencilParams(); !reflect.DeepEqual(got, want) {
		t.Fatalf("StencilParams() = %v\nwant %v", got, want)
	}
	// Every setting of every OC fits the columns.
	cols, _ := newColumns(Format, StencilParams())
	for _, oc := range smart.Combinations() {
		for _, n := range smart.ParamNames(3, oc) {
			if _, ok := cols.index[n]; !ok {
				t.Errorf("%s parameter %s has no column", oc, n)
			}
		}
	}
}

func TestCopyBandwidthRecord(t *testing.T) {
	dir := t.TempDir()
	if got, err := CopyBandwidths(dir); err != nil || got != nil {
		t.Fatalf("a data set without GPU runs: %v, %v", got, err)
	}
	at := time.Date(2026, 11, 22, 17, 8, 0, 0, time.UTC)
	path := filepath.Join(dir, CopyFile)
	// A line of the three-field format (before the card was recorded), then two of today's.
	if err := os.WriteFile(path, []byte("2026-11-22T17:08:00Z,NVIDIA H100 80GB HBM3; rev 2,2900.500\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, gbs := range []float64{2934, 2985.25} {
		c := CopyMeasurement{At: at, Device: "NVIDIA H100 80GB HBM3, rev 2", GBs: gbs, UUID: fmt.Sprintf("GPU-%d", i), Rows: 100 * (i + 1)}
		if err := AppendCopyBandwidth(dir, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []CopyMeasurement{
		{At: at, Device: "x", GBs: math.NaN()},
		{At: at, Device: "x", GBs: 1, UUID: "GPU-1,2"},
		{At: at, Device: "x", GBs: 1, Rows: -1},
	} {
		if err := AppendCopyBandwidth(dir, bad); err == nil {
			t.Errorf("%+v recorded", bad)
		}
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("2026-11-22T17:09:00Z,NVIDIA H100,29") // a run killed mid-line
	f.Close()
	got, err := CopyBandwidths(dir)
	const name = "NVIDIA H100 80GB HBM3; rev 2"
	want := []CopyMeasurement{{at, name, 2900.5, "", 0}, {at, name, 2934, "GPU-0", 100}, {at, name, 2985.25, "GPU-1", 200}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"2026-11-22T17:09:00Z,NVIDIA H100,fast", "2026-11-22T17:09:00Z,NVIDIA H100,29,GPU-1",
		"2026-11-22T17:09:00Z,NVIDIA H100,29,GPU-1,many"} {
		os.WriteFile(path, []byte(bad+"\n"), 0o644)
		if _, err := CopyBandwidths(dir); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("malformed line %q: %v", bad, err)
		}
	}
}

// TestReadStencil reads a data set's stencil by the id its rows name, and refuses a file that
// holds another stencil (renamed, or edited after the rows were written).
func TestReadStencil(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, StencilsDir), 0o755)
	a := []byte(`{"format":"smart-stencil/1","dims":2,"offsets":[[0,0],[1,0],[-1,0]]}`)
	b := []byte(`{"format":"smart-stencil/1","dims":2,"offsets":[[0,0],[0,1],[0,-1]]}`)
	sa, err := smart.ParseStencil(a, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := smart.ParseStencil(b, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, StencilsDir, sa.ID()+".json"), a, 0o644)
	os.WriteFile(filepath.Join(dir, StencilsDir, sb.ID()+".json"), a, 0o644) // b's name, a's content
	if st, err := ReadStencil(dir, sa.ID()); err != nil || st.ID() != sa.ID() {
		t.Errorf("ReadStencil(%s) = %v, %v", sa.ID(), st, err)
	}
	if _, err := ReadStencil(dir, sb.ID()); err == nil || !strings.Contains(err.Error(), "holds stencil "+sa.ID()+", not "+sb.ID()) {
		t.Errorf("a file holding another stencil: error %v", err)
	}
	if _, err := ReadStencil(dir, "0123456789abcdef"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: error %v", err)
	}
}

// TestCreateRefusesForeignFiles: a new data set goes into an empty or missing directory, not
// beside someone else's files.
func TestCreateRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	meta := Meta{Sources: []smart.Source{smart.Simulated}, Devices: []Device{{GPU: "A100-40GB", Name: "analytic model"}}, Params: StencilParams()}
	if _, err := Create(dir, meta); err == nil || !strings.Contains(err.Error(), "is not empty and holds no data set (notes.txt") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, MetaFile)); err == nil {
		t.Error("meta.json was written beside the foreign file")
	}
	w, err := Create(filepath.Join(dir, "new"), meta)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a1", "a2", "b"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	got, err := Glob([]string{filepath.Join(dir, "a*"), " ", " " + filepath.Join(dir, "b") + " "})
	want := []string{filepath.Join(dir, "a1"), filepath.Join(dir, "a2"), filepath.Join(dir, "b")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Glob: %v, %v; want %v", got, err, want)
	}
	if _, err := Glob([]string{filepath.Join(dir, "a*"), filepath.Join(dir, "c*")}); err == nil || !strings.Contains(err.Error(), "c*") {
		t.Errorf("a pattern naming nothing: %v", err)
	}
	// A pattern naming rows.csv picks the data sets among other files; each stands for its directory.
	os.WriteFile(filepath.Join(dir, "a1", RowsFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "b", RowsFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "a1.json"), nil, 0o644)
	got, err = Glob([]string{filepath.Join(dir, "*", RowsFile)})
	if want := []string{filepath.Join(dir, "a1"), filepath.Join(dir, "b")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Glob of rows.csv: %v, %v; want %v", got, err, want)
	}
}

// TestStatsJSONTorn: the torn line smart dataset stats --json reports has snake_case keys, as
// all of smart's JSON.
func TestStatsJSONTorn(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Meta{Sources: []smart.Source{smart.Measured, smart.Simulated}, AllowMixed: true,
		Devices: []Device{{GPU: "A100-40GB"}, {GPU: "V100"}}, Params: StencilParams()})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range sampleRows()[:2] {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	rows := filepath.Join(dir, RowsFile)
	full, err := os.ReadFile(rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rows, append(full, "1,2"...), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ComputeStats(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`"torn":{"line":4,"offset":%d,"bytes":3}`, len(full)); !strings.Contains(string(b), want) {
		t.Errorf("stats JSON lacks %s:\n%s", want, b)
	}
}

// FuzzScanRows: no rows.csv makes Scan panic, and every row it accepts writes back (Key) and has
// a finite, non-negative time.
func FuzzScanRows(f *testing.F) {
	src := "../data/measured/h100-sxm/random/j2d13pt"
	meta, err := os.ReadFile(filepath.Join(src, "meta.json"))
	if err != nil {
		f.Fatal(err)
	}
	rows, err := os.ReadFile(filepath.Join(src, "rows.csv"))
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(rows, []byte("\n"))
	f.Add(bytes.Join(lines[:4], nil))
	f.Add(bytes.Join(lines[:3], nil)[:len(bytes.Join(lines[:3], nil))-20])
	f.Fuzz(func(t *testing.T, csv []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "rows.csv"), csv, 0o644); err != nil {
			t.Fatal(err)
		}
		Scan(dir, func(m smart.Measurement) error {
			if m.TimeMs < 0 || math.IsNaN(m.TimeMs) || math.IsInf(m.TimeMs, 0) {
				t.Errorf("accepted a row timed %v ms", m.TimeMs)
			}
			Key(m)
			return nil
		})
	})
}
