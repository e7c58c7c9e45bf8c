package bit

import "testing"

func TestOf(t *testing.T) {
	if Of(true) != 1 || Of(false) != 0 {
		t.Fatalf("Of(true) = %d, Of(false) = %d; want 1 and 0", Of(true), Of(false))
	}
}
