// Package app is the application layer under the command line: the one place that builds
// evaluators and strategies by name, and runs, records and resumes benchmarks, tuning,
// strategy comparisons and training. Its settings are plain structs, long work takes a
// context.Context, and what a user should read (notes, progress) reaches the caller through an
// io.Writer or a callback: the package never prints on its own.
package app
