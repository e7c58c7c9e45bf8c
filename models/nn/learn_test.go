package nn

import (
	"testing"

	"smart/models"
)

// Each network learns a task it must be able to learn, judged on held-out rows. The layers are
// smaller and the learning rates larger than the defaults so that the tests stay fast.
func TestLearns(t *testing.T) {
	tests := []struct {
		name, kind   string
		train, valid *models.Data
		params       map[string]string
		minAccuracy  float64 // classifiers
		maxMAPE      float64 // regressors, percent
	}{
		{"convnet-2d", KindConvNet, orderData(2, 1500, 1), orderData(2, 400, 2),
			map[string]string{"filters": "8-16", "hidden": "32", "lr": "3e-3", "epochs": "6"}, 0.9, 0},
		{"convnet-3d", KindConvNet, orderData(3, 800, 3), orderData(3, 300, 4),
			map[string]string{"filters": "16", "hidden": "32", "lr": "3e-3", "epochs": "10"}, 0.9, 0},
		{"fcnet", KindFcNet, argmaxData(2000, 5), argmaxData(500, 6),
			map[string]string{"hidden": "32-16", "lr": "1e-2", "epochs": "20"}, 0.9, 0},
		{"mlp", KindMLP, smoothData(2000, 7), smoothData(500, 8),
			map[string]string{"layers": "3", "width": "32", "lr": "5e-3", "batch": "32", "epochs": "30"}, 0, 5},
		{"convmlp", KindConvMLP, tensorTimeData(1500, 9), tensorTimeData(400, 10),
			map[string]string{"filters": "8", "branch": "16", "hidden": "32", "lr": "3e-3", "batch": "32", "epochs": "25"}, 0, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := mustTrain(t, tc.kind, tc.train, nil, tc.params)
			if tc.minAccuracy > 0 {
				if acc := accuracy(t, n, tc.valid); acc < tc.minAccuracy {
					t.Errorf("held-out accuracy %.3f, want at least %.2f", acc, tc.minAccuracy)
				} else {
					t.Logf("held-out accuracy %.3f", acc)
				}
			} else {
				if e := mape(t, n, tc.valid); e > tc.maxMAPE {
					t.Errorf("held-out MAPE %.2f%%, want at most %.1f%%", e, tc.maxMAPE)
				} else {
					t.Logf("held-out MAPE %.2f%%", e)
				}
			}
		})
	}
}
