// Package dataset stores measurements of stencil (or foreign) kernels as data sets and runs the
// benchmarks that fill them.
//
// A data set is a directory:
//
//	meta.json    format version, source (measured, simulated or imported), device, driver, CUDA
//	             and tool versions, parameter columns, sampling plan and seed (Meta); of a
//	             simulated device, which constants of the analytic model timed it (Constants)
//	rows.csv     one row per measured variant (Columns): readable by pandas.read_csv as it is
//	items.csv    the variants a benchmark run planned (SaveItems), so a resume need not redraw them
//	stencils/    the stencils measured, one file each, named by smart.Stencil.ID
//	labels.json  best OC per stencil and the merged OC classes, written by Label
//
// rows.csv is only ever appended to, one write per row and an fsync every few rows or seconds, so
// a run killed at any moment loses at most the row being written; Resume cuts such a torn last
// line off and reports it, and a Runner skips the variants already measured. Runs can be split
// into shards (by stencil) and the shards joined with Merge. Meta.Format names the columns of
// rows.csv: a data set of an older format is appended to in its own (what it has no column for,
// such as the compiler's facts of smart.Measurement.Compiled, is left out); Merge writes Format.
//
// The package also reads Kernel Tuner cache files, T4 result files and KTT's own JSON results
// into the same row format (Import), and replays any data set or cache as a smart.Evaluator
// (Replay), which is what Kernel Tuner calls simulation mode.
// A Recorder puts a data set in front of an Evaluator: it answers the variants the data set holds
// and appends the others' answers, so a tuning run (smart tune --record) can be resumed.
package dataset
