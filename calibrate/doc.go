// Package calibrate fits the analytic stencil model's free constants (roofline.Calibration) to
// measured data sets, scores the fit on stencils it has not seen (leaving a fold of them out at
// a time, and on other GPUs), derives a prediction interval from those held-out errors, and
// reads and writes the result as a versioned file (format smart-calibration/1) that names the
// data it came from.
package calibrate
