package kinds

import (
	"slices"
	"testing"

	"smart/models"
)

func TestAll(t *testing.T) {
	k := All()
	tests := []struct {
		name      string
		tasks     []models.Task
		normalize bool
	}{
		{"gbdt", []models.Task{models.Select, models.Runtime, models.Local}, false},
		{"forest", []models.Task{models.Runtime}, false},
		{"cart", []models.Task{models.Runtime}, false},
		{"knn", []models.Task{models.Runtime}, true},
		{"convnet", []models.Task{models.Select}, true},
		{"fcnet", []models.Task{models.Select}, true},
		{"mlp", []models.Task{models.Runtime}, true},
		{"convmlp", []models.Task{models.Runtime}, true},
	}
	for _, tc := range tests {
		kind, ok := k[tc.name]
		if !ok {
			t.Errorf("kind %s missing", tc.name)
			continue
		}
		if !slices.Equal(kind.Tasks, tc.tasks) || kind.Normalize != tc.normalize || kind.Train == nil || kind.Decode == nil {
			t.Errorf("kind %s: tasks %v, normalize %v", tc.name, kind.Tasks, kind.Normalize)
		}
	}
	if len(k) != len(tests) {
		t.Errorf("%d kinds: %v", len(k), k.Names())
	}
}
