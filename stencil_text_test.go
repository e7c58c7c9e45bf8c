package smart

import (
	"strings"
	"testing"
)

// TestStencilText checks the summary and the drawn pattern of small stencils against
// hand-drawn text: an asymmetric 2-D stencil (so a flipped axis shows) and a 3-D one.
func TestStencilText(t *testing.T) {
	tests := []struct {
		name    string
		dims    int
		offs    []Offset
		grid    [3]int
		summary string
		pattern string
	}{
		{"l2d", 2, []Offset{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}}, [3]int{64, 32, 1},
			"l2d: 2-D, order 2, 4 points, grid 64x32, float64, 3 steps, id ",
			`  y\x -2 -1  0 +1 +2
   +2  .  .  .  .  .
   +1  .  .  o  .  .
    0  .  .  @  o  o
   -1  .  .  .  .  .
   -2  .  .  .  .  .
`},
		{"", 3, []Offset{{0, 0, 0}, {0, 0, -1}}, [3]int{8, 8, 8},
			"(unnamed): 3-D, order 1, 2 points, grid 8x8x8, float64, 3 steps, id ",
			`z = -1
  y\x -1  0 +1
   +1  .  .  .
    0  .  o  .
   -1  .  .  .
z = 0
  y\x -1  0 +1
   +1  .  .  .
    0  .  @  .
   -1  .  .  .
z = +1
  y\x -1  0 +1
   +1  .  .  .
    0  .  .  .
   -1  .  .  .
`},
	}
	for _, tt := range tests {
		s, err := NewStencil(tt.name, tt.dims, tt.offs, nil, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		s.Grid, s.Steps = tt.grid, 3
		if got := s.Summary(); got != tt.summary+s.ID() {
			t.Errorf("Summary() = %q, want %q", got, tt.summary+s.ID())
		}
		var b strings.Builder
		if err := s.WritePattern(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.pattern {
			t.Errorf("%s pattern:\n%s\nwant\n%s", tt.name, b.String(), tt.pattern)
		}
	}
}

func TestSigned(t *testing.T) {
	for v, want := range map[int]string{-3: "-3", 0: "0", 1: "+1", 12: "+12"} {
		if got := Signed(v); got != want {
			t.Errorf("Signed(%d) = %q, want %q", v, got, want)
		}
	}
}

// TestSummaryCounts: one step and one point are singular.
func TestSummaryCounts(t *testing.T) {
	s, err := NewStencil("one", 2, []Offset{{0, 0, 0}}, nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s.Grid, s.Steps = [3]int{8, 8, 1}, 1
	if got, want := s.Summary(), "one: 2-D, order 0, 1 point, grid 8x8, float64, 1 step, id "+s.ID(); got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}
