package cuda

import (
	"bytes"
	"testing"
)

// TestKernelSummary: the summary of a temporally blocked kernel of 7 steps lists its two
// launches (TestLaunches checks their numbers); the JSON form holds the source only where no
// file does.
func TestKernelSummary(t *testing.T) {
	st := named(t, "j2d5pt", 0, 0)
	st.Grid, st.Steps = [3]int{41, 37, 1}, 7
	k, err := Generate(st, tuning(t, 2, "TB", "bx=32,by=4,shared=1,const=0,tt=3"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := k.WriteSummary(&b, "k.cu"); err != nil {
		t.Fatal(err)
	}
	want := "wrote k.cu: namespace " + k.Name + ", 7 time steps\n" +
		"  kernel_t3: grid 2x9x1, block 32x4x1, 5344 B dynamic shared memory, 3 steps per launch, 2 launches\n" +
		"  kernel_t1: grid 2x9x1, block 32x4x1, 1632 B dynamic shared memory, 1 step per launch, 1 launch\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	for _, c := range []struct {
		file       string
		wantSource bool
	}{{"", true}, {"k.cu", false}} {
		j := k.JSON(c.file)
		if (j.Source == k.File()) != c.wantSource || (j.Source == "") == c.wantSource || j.File != c.file {
			t.Errorf("JSON(%q): file %q, source of %d bytes", c.file, j.File, len(j.Source))
		}
		if j.Namespace != k.Name || j.Steps != 7 || len(j.Launches) != 2 || j.OC != k.OC {
			t.Errorf("JSON(%q) = %+v", c.file, j)
		}
	}
	// One step is singular.
	st.Steps = 1
	one, err := Generate(st, tuning(t, 2, "BASE", "bx=32,by=4,shared=1,const=0"))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := one.WriteSummary(&b, "k.cu"); err != nil {
		t.Fatal(err)
	}
	if want := "wrote k.cu: namespace " + one.Name + ", 1 time step\n"; !bytes.HasPrefix(b.Bytes(), []byte(want)) {
		t.Errorf("one step: got\n%s\nwant it to begin %q", b.String(), want)
	}
}
