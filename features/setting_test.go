package features

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
)

func TestSettingNames(t *testing.T) {
	want2 := []string{"oc_ST", "oc_BM", "oc_CM", "oc_RT", "oc_PR", "oc_TB",
		"log2_bx", "log2_by", "shared", "const", "sd", "log2_sb",
		"log2_ufx", "log2_ufy", "log2_bmx", "log2_bmy", "log2_cmx", "log2_cmy", "log2_tt"}
	if got := SettingNames(2); !reflect.DeepEqual(got, want2) {
		t.Errorf("SettingNames(2) = %v", got)
	}
	if got := SettingNames(3); len(got) != 23 || got[8] != "log2_bz" {
		t.Errorf("SettingNames(3) = %v", got)
	}
	// The layout covers exactly the parameters some combination has.
	for _, dims := range []int{2, 3} {
		union := map[string]bool{}
		for _, oc := range smart.Combinations() {
			for _, p := range smart.ParamNames(dims, oc) {
				union[p] = true
			}
		}
		params := settingParams(dims)
		if len(params) != len(union) {
			t.Errorf("%d-D layout has %d parameters, the combinations %d", dims, len(params), len(union))
		}
		for _, p := range params {
			if !union[p] {
				t.Errorf("%d-D layout has %s, which no combination takes", dims, p)
			}
		}
	}
}

func TestSettingGolden(t *testing.T) {
	for _, tc := range []struct {
		dims int
		oc   string
		set  string
		want []float64
	}{
		{2, "BASE", "bx=64,by=8,shared=0,const=1",
			[]float64{0, 0, 0, 0, 0, 0, 6, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{3, "ST_BM_TB", "bx=32,by=4,bz=1,shared=1,const=0,sd=3,sb=16,ufx=1,ufy=2,ufz=4,bmx=2,bmy=1,bmz=1,tt=2",
			[]float64{1, 1, 0, 0, 0, 1, 5, 2, 0, 1, 0, 3, 4, 0, 1, 2, 1, 0, 0, 0, 0, 0, 1}},
		{2, "CM", "bx=16,by=16,shared=7,const=0,ufx=2,ufy=1,cmx=1,cmy=8",
			[]float64{0, 0, 1, 0, 0, 0, 4, 4, 1, 0, 0, 0, 1, 0, 0, 0, 0, 3, 0}},
	} {
		oc, err := smart.ParseCombination(tc.oc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := smart.ParseSetting(tc.set)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Setting(tc.dims, oc, s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s:\n got %v\nwant %v", tc.oc, tc.set, got, tc.want)
		}
	}
}

// Every combination encodes to the same length, with its bits set, absent parameters 0 and
// present ones encoded.
func TestSettingEveryCombination(t *testing.T) {
	for _, dims := range []int{2, 3} {
		names := SettingNames(dims)
		for _, oc := range smart.Combinations() {
			s := smart.Setting{}
			for _, p := range smart.ParamNames(dims, oc) {
				s[p] = 4
			}
			if oc.Has(smart.ST) {
				s[smart.ParamStreamD] = 2
			}
			v, err := Setting(dims, oc, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(v) != len(names) {
				t.Fatalf("%s: %d values for %d names", oc, len(v), len(names))
			}
			for i, name := range names {
				var want float64
				if opt, ok := strings.CutPrefix(name, "oc_"); ok {
					for _, o := range []smart.Optimization{smart.ST, smart.BM, smart.CM, smart.RT, smart.PR, smart.TB} {
						if o.String() == opt && oc.Has(o) {
							want = 1
						}
					}
				} else if p := strings.TrimPrefix(name, "log2_"); slices.Contains(smart.ParamNames(dims, oc), p) {
					switch p {
					case smart.ParamShared, smart.ParamConst:
						want = 1
					case smart.ParamStreamD:
						want = 2
					default:
						want = 2 // log2(4)
					}
				}
				if v[i] != want {
					t.Errorf("%d-D %s: %s = %v, want %v", dims, oc, name, v[i], want)
				}
			}
		}
	}
}

func TestSettingErrors(t *testing.T) {
	base := "bx=32,by=4,shared=1,const=0"
	for _, tc := range []struct {
		dims int
		oc   smart.Combination
		set  string
		want string
	}{
		{2, 0, "bx=32,shared=1,const=0", "parameter by is missing"},
		{2, 0, base + ",tt=2", "takes no parameter tt"},
		{2, 0, "bx=0,by=4,shared=1,const=0", "bx is 0; it must be at least 1"},
		{2, smart.Combination(smart.BM | smart.CM), base, "exclude each other"},
		{2, smart.Combination(smart.ST), base + ",sd=3,sb=8,ufx=1,ufy=1", "sd is 3"},
		{4, 0, base, "dims is 4"},
	} {
		s, err := smart.ParseSetting(tc.set)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Setting(tc.dims, tc.oc, s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.set, err, tc.want)
		}
	}
}

func TestGPU(t *testing.T) {
	g := smart.SM80()
	v, err := GPU(g)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{40, 1555, 108, 9.7, 19.5, 40, 164, 65536, 2048, 1410}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("GPU(SM80) = %v, want %v", v, want)
	}
	if len(GPUNames()) != len(v) || GPUNames()[1] != "bandwidth_gbs" {
		t.Errorf("GPUNames() = %v", GPUNames())
	}
	g.BandwidthGBs = 0
	if _, err := GPU(g); err == nil || !strings.Contains(err.Error(), `field "bandwidth_gbs" is 0`) {
		t.Errorf("zero bandwidth: %v", err)
	}
}
