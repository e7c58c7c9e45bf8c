package main

import (
	"math"
	"strings"
	"testing"
)

// TestScore: per stencil, the mean absolute percentage error, the rank correlation and the best
// measured time over that of the predicted fastest; summarised as the mean MAPE, the median
// Spearman and the geometric mean share.
func TestScore(t *testing.T) {
	var s score
	s.add([]float64{1, 2, 4}, []float64{1, 2, 4})       // exact: 0%, 1, 1
	s.add([]float64{2, 1, 3}, []float64{1, 2, 4})       // 100%, 50%, 25%: 58.3%; picks the 2 (share 0.5)
	s.add([]float64{1.1, 2.2, 4.4}, []float64{1, 2, 4}) // 10%, ranks right, share 1
	if math.Abs(s.mape[1]-1.75/3) > 1e-12 || s.share[1] != 0.5 || s.rho[0] != 1 || s.rho[1] != 0.5 {
		t.Fatalf("scores %+v", s)
	}
	got := s.String()
	if !strings.Contains(got, "MAPE  22.8%") || !strings.Contains(got, "Spearman median 1.00") || !strings.Contains(got, "pick share 0.794") {
		t.Errorf("%s; want MAPE (0+58.3+10)/3 = 22.8%%, median Spearman 1, share 0.5^(1/3) = 0.794", got)
	}
}
