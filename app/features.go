package app

import (
	"errors"
	"fmt"
	"io"

	"smart"
	"smart/features"
	"smart/generator"
)

// FeatureReports computes the features of each stencil file (generator.Load; "-" reads
// stdin) with tensor radius maxOrder, the largest order a file may have. A file that fails is
// left out and its error joined to the others.
func FeatureReports(files []string, stdin io.Reader, maxOrder int, tensor bool) ([]*features.Report, error) {
	var reports []*features.Report
	var errs []error
	for _, path := range files {
		s, err := generator.Load(path, stdin, smart.Limits{MaxOrder: maxOrder})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rep, err := features.NewReport(path, s, maxOrder, tensor)
		if err != nil {
			errs = append(errs, fmt.Errorf("stencil file %s: %w", path, err))
			continue
		}
		reports = append(reports, rep)
	}
	return reports, errors.Join(errs...)
}
