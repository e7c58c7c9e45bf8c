package english

import "testing"

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{0, "OC", "0 OCs"}, {1, "OC", "1 OC"}, {2, "OC", "2 OCs"}, {-1, "OC", "-1 OCs"},
		{1, "launch", "1 launch"}, {10, "launch", "10 launches"}, {3, "pass", "3 passes"},
		{2, "box", "2 boxes"}, {2, "mesh", "2 meshes"}, {2, "thread", "2 threads"},
	} {
		if got := Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
