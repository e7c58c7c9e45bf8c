// Package kinds assembles every model kind smart knows into one models.Kinds, so that commands
// train and load any model by name without a global registry.
package kinds

import (
	"smart/models"
	"smart/models/forest"
	"smart/models/gbdt"
	"smart/models/golearn"
	"smart/models/nn"
)

// All returns the kinds: gbdt, forest, cart, knn and the neural networks (convnet, fcnet, mlp,
// convmlp).
func All() models.Kinds {
	k := models.Kinds{}
	gbdt.Register(k)
	forest.Register(k)
	golearn.Register(k)
	nn.Register(k)
	return k
}
