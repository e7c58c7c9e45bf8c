// Package transfer predicts a kernel's time for every setting on a GPU it was never measured
// on, from the same kernel's measurements on other GPUs: zero-shot from the catalogue's
// description of the GPUs, few-shot from a handful of settings measured on the target (the
// shots), which also describe a GPU the catalogue lacks.
//
// The zero-shot prediction of a setting is the sources' shape (each source's log time about
// its own level, averaged over the sources that ran the setting) plus the target's level: each
// source's level moved by the hardware ratio -s ln(bandwidth) - (1-s) ln(FLOPS) of the two GPUs,
// where the share s is fitted on the sources themselves when enough of them share the target's
// vendor. Sources of the target's vendor answer alone when there are any: other vendors' kernels
// are other programs. Shots correct it: first the level, then, with enough shots, how the
// target treats the parameters, the correction chosen by leaving each shot out in turn.
// Intervals take the errors of those left-out predictions at the ranks split-conformal
// prediction takes (or the sources' errors, each predicted from the others, with too few
// shots; zero-shot, from 4 or more sources, each one error of the level); their levels are
// nominal, their coverage measured (bench/fewshot).
package transfer
