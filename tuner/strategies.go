package tuner

import (
	"slices"

	"smart"
)

// Option names a field of Options.
type Option int

// The fields of Options.
const (
	OptionBatch Option = iota
	OptionModel
	OptionPickRatio
	OptionCutRatio
	OptionThreads
	OptionInitial
	OptionVariants
	OptionPrior
)

// Options are the settings of a strategy chosen by name. Each strategy reads the ones its
// Strategy.Takes lists and ignores the others; a zero value means the strategy's default.
type Options struct {
	Batch     int     // settings per round (Random, Bayes)
	Model     Model   // the in-loop model (IterML); checked when the search starts
	PickRatio float64 // share of the space sampled per iteration (IterML)
	CutRatio  float64 // share of the remaining space dropped per iteration (IterML)
	Threads   int     // the model's parallelism (IterML)
	Initial   int     // settings measured at random first (CSTuner, Descent); 0: the method's own
	Variants  int     // ranked variants searched (Pipeline)
	// Prior ranks settings before any run: the Pipeline's Surrogate, Bayes's Prior.
	Prior smart.Evaluator
}

// Strategy is a search strategy by name: what the command line and the comparisons choose
// from.
type Strategy struct {
	Name  string
	Takes []Option // the fields of Options it reads
	build func(Options) Method
}

// New returns the strategy's Method with the options it takes.
func (s Strategy) New(o Options) Method { return s.build(o) }

// Reads reports whether the strategy reads option o.
func (s Strategy) Reads(o Option) bool { return slices.Contains(s.Takes, o) }

// Strategies returns every strategy, the baselines first.
func Strategies() []Strategy {
	return []Strategy{
		{Name: "random", Takes: []Option{OptionBatch}, build: func(o Options) Method {
			return &Random{Batch: o.Batch}
		}},
		{Name: "exhaustive", build: func(Options) Method { return Exhaustive{} }},
		{Name: "iterml", Takes: []Option{OptionModel, OptionPickRatio, OptionCutRatio, OptionThreads}, build: func(o Options) Method {
			return &IterML{PickRatio: o.PickRatio, CutRatio: o.CutRatio, Model: o.Model, Threads: o.Threads}
		}},
		{Name: "cstuner", Takes: []Option{OptionInitial}, build: func(o Options) Method {
			return &CSTuner{Initial: o.Initial}
		}},
		{Name: "pipeline", Takes: []Option{OptionVariants, OptionPrior}, build: func(o Options) Method {
			return &Pipeline{Variants: o.Variants, Surrogate: o.Prior}
		}},
		{Name: "bayes", Takes: []Option{OptionBatch, OptionPrior}, build: func(o Options) Method {
			return &Bayes{Batch: o.Batch, Prior: o.Prior}
		}},
		{Name: "descent", Takes: []Option{OptionInitial}, build: func(o Options) Method {
			return &Descent{Samples: o.Initial, Restart: true}
		}},
	}
}

// LookupStrategy returns the strategy of the given name.
func LookupStrategy(name string) (Strategy, bool) {
	i := slices.IndexFunc(Strategies(), func(s Strategy) bool { return s.Name == name })
	if i < 0 {
		return Strategy{}, false
	}
	return Strategies()[i], true
}
