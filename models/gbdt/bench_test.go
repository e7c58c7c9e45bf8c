package gbdt

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"smart/models"
)

// benchData is a regression on 20 uniform features (the synthetic matrix of bench/xgboost).
func benchData(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := &models.Data{Task: models.Runtime}
	for j := 0; j < 20; j++ {
		d.Features = append(d.Features, "x")
	}
	for i := 0; i < n; i++ {
		x := make([]float64, 20)
		for j := range x {
			x[j] = rng.Float64()
		}
		y := math.Sin(6*x[0]) + 2*x[1]*x[2] + x[3]*x[3] + 0.5*math.Sin(9*x[4]*x[5])
		d.X = append(d.X, x)
		d.Y = append(d.Y, y+0.1*rng.NormFloat64())
	}
	return d
}

func benchParams(rounds int) Params {
	p := DefaultParams()
	p.Rounds, p.Growth, p.MaxDepth, p.MaxLeaves, p.MinDataInLeaf, p.MinChildWeight, p.EarlyStop = rounds, "depthwise", 6, 64, 1, 1, 0
	return p
}

// BenchmarkTrain trains 20 depth-6 rounds on 100k rows of 20 features; rows*rounds/s is the
// throughput compared with XGBoost in bench/xgboost.
func BenchmarkTrain(b *testing.B) {
	d := benchData(100_000, 1)
	for _, threads := range []int{1, 2} {
		b.Run(map[int]string{1: "threads=1", 2: "threads=2"}[threads], func(b *testing.B) {
			p := benchParams(20)
			p.Threads = threads
			for b.Loop() {
				if _, err := Train(context.Background(), d, nil, p, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(d.Rows()*p.Rounds)*float64(b.N)/b.Elapsed().Seconds(), "row-rounds/s")
		})
	}
}

func benchModel(b *testing.B, task models.Task) (*Model, [][]float64) {
	b.Helper()
	d := benchData(20_000, 2)
	if task == models.Select {
		d.Task, d.Classes = models.Select, 5
		for i, y := range d.Y {
			d.Y[i] = float64(min(4, max(0, int(y+1))))
		}
	}
	m, err := Train(context.Background(), d, nil, benchParams(200), nil)
	if err != nil {
		b.Fatal(err)
	}
	return m, benchData(100_000, 3).X
}

// BenchmarkPredictSingle predicts one row with a 200-round depth-6 model (5 classes: 1000 trees).
func BenchmarkPredictSingle(b *testing.B) {
	for _, task := range []models.Task{models.Runtime, models.Select} {
		b.Run(string(task), func(b *testing.B) {
			m, rows := benchModel(b, task)
			i := 0
			for b.Loop() {
				var err error
				if task == models.Select {
					_, err = m.PredictProba(rows[i%len(rows)])
				} else {
					_, err = m.Predict(rows[i%len(rows)])
				}
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkPredictBatch100k predicts 100k rows at once, in parallel (a regression through
// package hist's forest, a classifier through leaves).
func BenchmarkPredictBatch100k(b *testing.B) {
	for _, task := range []models.Task{models.Runtime, models.Select} {
		b.Run(string(task), func(b *testing.B) {
			m, rows := benchModel(b, task)
			for b.Loop() {
				var err error
				if task == models.Select {
					_, err = m.PredictProbaBatch(rows)
				} else {
					_, err = m.PredictBatch(rows)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
