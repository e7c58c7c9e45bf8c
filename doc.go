// Package smart holds the domain types of the smart toolkit: stencils and their file format,
// optimization combinations, parameter settings, GPU descriptions, measurements and the
// Evaluator interface that joins measuring, predicting and tuning.
//
// The package has no I/O beyond parsing and formatting its own types and imports nothing of the
// project; every other package builds on it.
package smart
