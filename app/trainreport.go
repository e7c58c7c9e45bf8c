package app

import (
	"fmt"
	"io"
	"sort"

	"smart/models"
	"smart/models/train"
)

// TrainReport is what a training fitted, on what, and how well it cross-validated.
type TrainReport struct {
	Model      string              `json:"model"`
	Kind       string              `json:"kind"`
	Task       models.Task         `json:"task"`
	Rows       int                 `json:"rows"`
	Features   int                 `json:"features"`
	Data       []models.DataRef    `json:"data"`
	CV         *train.Report       `json:"cv,omitempty"`
	Hyper      any                 `json:"hyper"`
	Importance []models.Importance `json:"importance,omitempty"` // the 10 of most gain, where the kind tells
}

// Report is the report of trained, fitted by t on set.
func (t Train) Report(set *train.Set, trained *Trained) TrainReport {
	r := TrainReport{Model: t.Out, Kind: t.Kind, Task: t.Task, Rows: set.Data.Rows(), Features: len(set.Data.Features),
		Data: set.Refs, CV: trained.CV, Hyper: trained.Header.Hyper}
	if imp, ok := trained.Fitted.(interface {
		Importance([]string) []models.Importance
	}); ok {
		r.Importance = topImportance(imp.Importance(set.Data.Features), 10)
	}
	return r
}

// topImportance is the n features of most gain, leaving out those never split on.
func topImportance(imp []models.Importance, n int) []models.Importance {
	imp = append([]models.Importance(nil), imp...)
	sort.SliceStable(imp, func(i, j int) bool { return imp[i].Gain > imp[j].Gain })
	for len(imp) > 0 && imp[len(imp)-1].Splits == 0 {
		imp = imp[:len(imp)-1]
	}
	return imp[:min(n, len(imp))]
}

// WriteText writes the cross-validation's tables (where there was one), what was trained, its
// most important features and the file written.
func (r TrainReport) WriteText(w io.Writer) error {
	if r.CV != nil {
		if err := r.CV.WriteTables(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "trained %s (%s) on %d rows of %d features; hyper-parameters %s\n", r.Kind, r.Task, r.Rows, r.Features, r.Hyper)
	if len(r.Importance) > 0 {
		fmt.Fprint(w, "most important features (gain, splits):")
		for _, im := range r.Importance {
			fmt.Fprintf(w, " %s (%.3g, %d)", im.Feature, im.Gain, im.Splits)
		}
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintf(w, "wrote %s\n", r.Model)
	return err
}
