package english

import "testing"

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 OCs"}, {1, "1 OC"}, {2, "2 OCs"}, {-1, "-1 OCs"}} {
		if got := Plural(tc.n, "OC"); got != tc.want {
			t.Errorf("Plural(%d, OC) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
