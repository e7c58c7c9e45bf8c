// Package predict answers what smart predict and smart recommend print: for a stencil on a
// GPU, the probability of each optimization-combination (OC) class (a classifier, StencilMART
// IV-D), the best setting of the most promising OCs found by searching their setting spaces
// with a runtime regressor (IV-E), its time per step, and the same on the GPUs the models were
// trained on, those with a price, or (Predictor.AllGPUs) every catalogued GPU; and
// the GPUs ranked by time and by cost (V-D, "to rent or not to rent a cloud GPU"), with an HTML
// report whose charts gonum/plot draws as inline SVG.
//
// The models are the defaults embedded in the binary (data/models, trained by bench/defaults on
// data the analytic model simulates for 13 NVIDIA GPUs, P100 to H200) or the user's own
// (smart train). Every number carries its Provenance, read from the model file's header: the
// data sets behind the model, their sources (measured, imported, simulated) and GPUs. So a
// model trained on measurements of a GPU says "trained on measurements of this GPU" for it and
// "predicted from other GPUs" for the rest, and the defaults say "simulated: analytic model, no
// measurements of this GPU". The runtime models embedded from measurements (data/measured)
// answer for their GPU, and for another GPU of the vendor through Predictor.Transfer: the
// measured GPU's ranking, each time scaled by the analytic model's ratio of its setting on the
// two GPUs (with the calibration's constants between GPUs of one architecture, the
// literature's across).
//
// The setting search (Search) is the tuner's Descent strategy with the runtime model (or any
// Scorer, which is a smart.BatchEvaluator) as the Evaluator, on the space's lazy view: it does
// not generate the chain of trees of space, which for a 3-D stencil takes longer than a whole
// prediction may, but draws valid settings parameter by parameter from the space's constraints
// and descends greedily over neighbouring settings. On each GPU the OCs of the most probable
// classes are screened briefly and the fastest of each class searched in depth (Budget).
//
// A stencil beyond every learned model (an order their features do not reach, or order 0:
// NoModelError) is
// answered by the calibrated analytic model alone (AnalyticScorer, BasisAnalytic): with no
// classifier, every OC is screened and the fastest searched in depth, on each GPU alike.
package predict
