// Package tuner finds the fastest setting of a kernel with as few real runs as possible.
//
// It is modelled on gonum/optimize: a Problem (the spaces searched, the Evaluator that times a
// setting, the stencil and GPU), a Budget (evaluations, wall time, a target time) and a Method
// (one search strategy) meet in Search, the one entry point:
//
//	res, err := tuner.Search(ctx, problem, tuner.Budget{Evaluations: 200}, &tuner.IterML{}, seed)
//
// Search owns what every strategy needs and none should repeat: it checks every setting
// against its space before it is evaluated (an invalid setting is never run), answers a
// setting evaluated before from its cache (no setting is evaluated twice), counts a failed
// evaluation (StatusOK false) as an evaluation, as Kernel Tuner's simulation mode does, records
// it and never retries it, enforces the budget, and keeps the trace (the best time after each
// evaluation). A strategy only proposes settings.
//
// The strategies, one file each as in Kernel Tuner's strategies/:
//
//   - Random and Exhaustive, the baselines;
//   - IterML (Cui and Feng, CF'19, Algorithm 1): sample a share of the remaining space at
//     random, fit a regression model (random forest by default; CART, KNN or MLP), predict the
//     rest and drop the predicted slowest share, until the space is small enough, then search
//     what is left in predicted order;
//   - CSTuner (Sun et al., csTuner sections IV-C to IV-E): group the parameters by the
//     coefficient of variation of their best partners (Algorithm 1), sample the space with a
//     PMNF model of the run time or of the hardware metrics (Equation 3, Algorithm 2), and tune
//     the groups one after another with a genetic algorithm on re-indexed genes whose
//     sub-populations run in goroutines and migrate on a ring, each group stopped when the
//     coefficient of variation of the top fitness values falls under a threshold;
//   - Pipeline, the mission's chain: the optimization combinations ranked by a classifier (the
//     order of Problem.Variants), their spaces pruned with IterML on a runtime model or on a
//     first batch of real runs, and a genetic search of what survives on the real Evaluator;
//   - Bayes: Bayesian optimisation with bagged regression trees as the surrogate and Thompson
//     sampling as the acquisition;
//   - Descent: a multi-start steepest descent over neighbouring settings from the best of a
//     random sample. It walks the spaces' lazy views, so a Problem may give its variants as
//     space.Lazy alone where generating the spaces would cost more than the search: predict's
//     search of a runtime model (an Evaluator like any other) is this strategy.
//
// Strategies lists them by name, with the Options each takes, for a command line or a
// comparison to choose from.
//
// What strategies share lives in files of its own, never in a strategy's file: the Run and its
// cache (search.go), sampling and pools of settings (sample.go), the settings' encoding
// (encode.go), the bagged regression trees and the surrogate over them (ensemble.go,
// surrogate.go), the in-loop regression models (model.go), IterML's pruning loop (prune.go),
// the Thompson-sampling pool (pool.go), a prior's times (prior.go), the pair model (linear.go),
// csTuner's grouping, PMNF and genetic algorithm (grouping.go, pmnf.go, genetic.go) and order
// statistics (rank.go). TestStrategiesApart holds that.
//
// Every strategy is deterministic for a given seed: randomness comes from the seed alone and
// goroutines never decide an order.
package tuner
