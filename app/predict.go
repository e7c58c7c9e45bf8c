package app

import (
	"fmt"
	"os"

	"smart/catalog"
	"smart/models/kinds"
	"smart/predict"
)

// OpenPredictor returns the default predictor with the catalogue merged over by catalogFile
// ("" for none) and the models of modelFiles (smart train's files) in place of the defaults
// of their task and dimensions.
func OpenPredictor(catalogFile string, modelFiles []string) (*predict.Predictor, error) {
	p, err := predict.DefaultPredictor()
	if err != nil {
		return nil, err
	}
	if p.Catalog, err = catalog.Load(catalogFile); err != nil {
		return nil, err
	}
	all := kinds.All()
	for _, f := range modelFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("loading model: %w", err)
		}
		if err := p.Models.Use(b, f, all); err != nil {
			return nil, err
		}
	}
	return p, nil
}
