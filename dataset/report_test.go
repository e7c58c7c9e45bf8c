package dataset

import (
	"bytes"
	"testing"

	"smart"
)

func TestReportsText(t *testing.T) {
	base := smart.Combination(0)
	st, tb := base.With(smart.ST), base.With(smart.ST).With(smart.TB)
	h100 := Device{GPU: "H100-SXM", Name: "NVIDIA H100 80GB HBM3", Driver: "550.54", CUDA: "12.4"}
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"import", func(b *bytes.Buffer) error {
			return WriteFileSummaries(b, []FileSummary{
				{Path: "a.json.gz", Format: "cache", Device: "A100", GPU: "A100-40GB", Kernel: "conv", Rows: 10, ByStatus: map[smart.Status]int{smart.StatusOK: 3, smart.StatusLaunchError: 5, smart.StatusCompileError: 2}},
				{Path: "b.json", Format: "t4", Device: "W6600", Kernel: "conv", Rows: 4, ByStatus: map[smart.Status]int{smart.StatusOK: 4}, Duplicates: 1},
				{Path: "c.json", Format: "cache", Open: true, Device: "A4000", Kernel: "conv", Rows: 2, ByStatus: map[smart.Status]int{smart.StatusOK: 2}},
				{Path: "d.json", Format: "cache", Open: true, Torn: true, Device: "A4000", Kernel: "conv", Rows: 1, ByStatus: map[smart.Status]int{smart.StatusOK: 1}},
				{Path: "e.json", Format: "cache", Source: smart.Predicted, Device: "A4000", Kernel: "conv", Rows: 1, ByStatus: map[smart.Status]int{smart.StatusOK: 1}},
			})
		}, `file       format        device  GPU        kernel  rows  ok  failed                           duplicates
a.json.gz  cache         A100    A100-40GB  conv    10    3   compile_error 2, launch_error 5  0
b.json     t4            W6600   -          conv    4     4   0                                1
c.json     cache (open)  A4000   -          conv    2     2   0                                0
d.json     cache (open)  A4000   -          conv    1     1   0                                0
e.json     cache         A4000   -          conv    1     1   0                                0
c.json: a cache Kernel Tuner had not closed (its run was stopped, or still runs); read as Kernel Tuner reads it
d.json: a cache Kernel Tuner had not closed (its run was stopped, or still runs); read as Kernel Tuner reads it, without its last line, a configuration cut in the middle
e.json: smart's predictions (smart transfer -o), not measurements: its rows say predicted
`},
		{"merge", func(b *bytes.Buffer) error {
			return MergeSummary{Rows: 12, Duplicates: 2, Torn: []string{"runs/b"}, MissingShards: []string{"3/4", "4/4"},
				Unfinished: []Unfinished{{Dir: "runs/b", Shard: "2/4", Rows: 3, Variants: 6, Unmeasured: 1}, {Dir: "runs/c", Rows: 2, Unmeasured: 2}},
				Removed:    []string{"runs/.all.merging-123"}}.WriteText(b, "runs/all", 2)
		}, `removed runs/.all.merging-123, left behind by a merge into runs/all that was killed
wrote runs/all: 12 rows from 2 data sets, 2 duplicates left out
runs/b ended in a torn line (a killed run), left out
shard 2/4 (runs/b) is unfinished: 3 rows of the 6 variants its run drew, no row of 1 of its plan's stencils and OCs; resume its run and merge again
runs/c is unfinished: no row of 2 of its plan's stencils and OCs; resume its run and merge again
shards 3/4, 4/4 of the plan are missing
`},
		{"stats", func(b *bytes.Buffer) error {
			s := &Stats{Meta: Meta{Sources: []smart.Source{smart.Measured, smart.Simulated}, Devices: []Device{h100, {Name: "A100-40GB"}}}, Rows: 9,
				Torn:   &Torn{Line: 11, Bytes: 7},
				Counts: []CountRow{{GPU: "H100-SXM", OC: "ST", Rows: 9, ByStatus: map[smart.Status]int{smart.StatusOK: 8, smart.StatusInvalid: 1}}},
				BestOC: []BestOCRow{{GPU: "H100-SXM", OC: st, Stencils: 3}},
				Gap:    []GapRow{{GPU: "H100-SXM", Stencils: 3, Min: 1, Median: 1.5, Mean: 1.625, Max: 2.375}},
			}
			return s.WriteTables(b, "runs/x")
		}, `runs/x: 9 rows, measured+simulated on H100-SXM (NVIDIA H100 80GB HBM3), driver 550.54, CUDA 12.4; A100-40GB
rows.csv line 11 (7 bytes) was cut short, as by a killed run; left out

Rows by GPU, OC and status
       GPU  OC or kernel  rows  ok  compile_error  launch_error  wrong_result  timeout  invalid
  H100-SXM            ST     9   8              0             0             0        0        1

Best OC: stencils for which it is the fastest (StencilMART Fig. 2)
       GPU  OC  stencils
  H100-SXM  ST         3

Worst OC over best OC per stencil (StencilMART Fig. 1)
       GPU  stencils    min  median   mean    max
  H100-SXM         3  1.00x   1.50x  1.62x  2.38x
`},
		{"stats of two sources on a GPU", func(b *bytes.Buffer) error {
			s := &Stats{Meta: Meta{Sources: []smart.Source{smart.Measured, smart.Simulated}, Devices: []Device{h100, {GPU: "H100-SXM", Name: "analytic model"}}}, Rows: 6,
				Counts: []CountRow{
					{GPU: "H100-SXM", Source: smart.Measured, OC: "ST", Rows: 3, ByStatus: map[smart.Status]int{smart.StatusOK: 3}},
					{GPU: "H100-SXM", Source: smart.Simulated, OC: "ST", Rows: 3, ByStatus: map[smart.Status]int{smart.StatusOK: 3}},
				},
				BestOC:     []BestOCRow{{GPU: "H100-SXM", Source: smart.Measured, OC: st, Stencils: 2}, {GPU: "H100-SXM", Source: smart.Simulated, OC: st, Stencils: 1}},
				Gap:        []GapRow{{GPU: "H100-SXM", Source: smart.Measured, Stencils: 1, Min: 2, Median: 2, Mean: 2, Max: 2}},
				Incomplete: []Incomplete{{GPU: "H100-SXM", Source: smart.Simulated, Stencils: 1, OCs: 30}},
			}
			return s.WriteTables(b, "runs/x")
		}, `runs/x: 6 rows, measured+simulated on H100-SXM (NVIDIA H100 80GB HBM3), driver 550.54, CUDA 12.4; H100-SXM (analytic model), with unknown constants (not recorded)

Rows by GPU, OC and status
                   GPU  OC or kernel  rows  ok  compile_error  launch_error  wrong_result  timeout  invalid
   H100-SXM (measured)            ST     3   3              0             0             0        0        0
  H100-SXM (simulated)            ST     3   3              0             0             0        0        0
stencils on H100-SXM (simulated) measured under only some of its 30 OCs, left out of the best OCs and ratios below: 1

Best OC: stencils for which it is the fastest (StencilMART Fig. 2)
                   GPU  OC  stencils
   H100-SXM (measured)  ST         2
  H100-SXM (simulated)  ST         1

Worst OC over best OC per stencil (StencilMART Fig. 1)
                  GPU  stencils    min  median   mean    max
  H100-SXM (measured)         1  2.00x   2.00x  2.00x  2.00x
stencils on H100-SXM (measured) with a single OC that ran, and so no ratio: 1
stencils on H100-SXM (simulated) with a single OC that ran, and so no ratio: 1
`},
		{"stats of a kernel", func(b *bytes.Buffer) error {
			s := &Stats{Meta: Meta{Sources: []smart.Source{smart.Imported}, Devices: []Device{{Name: "W6600"}}}, Rows: 4,
				Counts:  []CountRow{{GPU: "W6600", Kernel: "conv", Rows: 4, ByStatus: map[smart.Status]int{smart.StatusOK: 4}}},
				Kernels: []KernelBest{{GPU: "W6600", Kernel: "conv", Rows: 4, OK: 4, BestMs: 1.23456, Setting: "bx=16", Spread: 3.04}},
			}
			return s.WriteTables(b, "runs/k")
		}, `runs/k: 4 rows, imported on W6600

Rows by GPU, OC and status
    GPU  OC or kernel  rows  ok  compile_error  launch_error  wrong_result  timeout  invalid
  W6600          conv     4   4              0             0             0        0        0

Fastest configuration per device and kernel (ms: the median of its runs, where given; Kernel Tuner's "time" is their mean)
device  kernel  rows  ok  best ms  slowest/best  setting
W6600   conv    4     4   1.235    3.0x          bx=16
`},
		{"labels", func(b *bytes.Buffer) error {
			l := &Labels{Sources: []smart.Source{smart.Simulated}, Devices: []Device{{GPU: "A100-40GB", Name: "A100-40GB"}}, Rows: 40,
				OCs:        []smart.Combination{base, st, tb},
				Classes:    []Class{{Label: st, Members: []smart.Combination{st}, Wins: 1}, {Label: tb, Members: []smart.Combination{base, tb}, Wins: 3}},
				Merges:     []MergeStep{{A: []smart.Combination{base}, B: []smart.Combination{tb}, Similarity: 0.8125}},
				Instances:  make([]Instance, 4),
				Unlabelled: 1,
				Incomplete: 2,
			}
			return l.WriteTables(b, "runs/l")
		}, `runs/l: 4 instances (stencil and GPU) labelled from 40 rows, simulated on A100-40GB, with unknown constants (not recorded); 1 had no ok time; 2 left out, measured under only some of the OCs
3 OCs ran, merged into 2 classes:
class  wins  members
ST_TB  3     BASE ST_TB
ST     1     ST

Merges, most correlated first:
  {BASE} + {ST_TB}  (mean PCC 0.812)
`},
		{"labels with given classes", func(b *bytes.Buffer) error {
			l := &Labels{Sources: []smart.Source{smart.Measured}, Devices: []Device{{GPU: "H100-SXM", Name: "NVIDIA H100 80GB HBM3"}}, Rows: 9,
				OCs:       []smart.Combination{base, st, tb},
				Classes:   []Class{{Label: st, Members: []smart.Combination{st}, Wins: 1}, {Label: tb, Members: []smart.Combination{base, tb}, Wins: 0}},
				Instances: make([]Instance, 1),
			}
			return l.WriteTables(b, "runs/g")
		}, `runs/g: 1 instance (stencil and GPU) labelled from 9 rows, measured on H100-SXM (NVIDIA H100 80GB HBM3)
3 OCs ran, labelled with the given 2 classes:
class  wins  members
ST     1     ST
ST_TB  0     BASE ST_TB
`},
		{"labels of a class an OC", func(b *bytes.Buffer) error {
			l := &Labels{Sources: []smart.Source{smart.Measured}, Devices: []Device{{GPU: "H100-SXM", Name: "NVIDIA H100 80GB HBM3"}}, Rows: 9,
				OCs:       []smart.Combination{base, st},
				Classes:   []Class{{Label: base, Members: []smart.Combination{base}, Wins: 1}, {Label: st, Members: []smart.Combination{st}, Wins: 1}},
				Instances: make([]Instance, 2),
			}
			return l.WriteTables(b, "runs/e")
		}, `runs/e: 2 instances (stencil and GPU) labelled from 9 rows, measured on H100-SXM (NVIDIA H100 80GB HBM3)
2 OCs ran, each a class of its own:
class  wins  members
BASE   1     BASE
ST     1     ST
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}
