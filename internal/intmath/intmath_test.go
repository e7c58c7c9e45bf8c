package intmath

import "testing"

func TestCeilDiv(t *testing.T) {
	for _, tc := range [][3]int{{0, 4, 0}, {1, 4, 1}, {4, 4, 1}, {5, 4, 2}, {512, 32, 16}, {513, 32, 17}} {
		if got := CeilDiv(tc[0], tc[1]); got != tc[2] {
			t.Errorf("CeilDiv(%d, %d) = %d, want %d", tc[0], tc[1], got, tc[2])
		}
	}
}
