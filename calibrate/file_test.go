package calibrate

import (
	"reflect"
	"testing"

	"smart"
	"smart/models"
)

// TestDefaultCopies: the embedded calibration is decoded once, and each caller gets a copy that
// shares no slice, map or pointer with another's, so that a caller changing its copy (a GPU's
// copy bandwidth, say) changes no other's. Checked field by field through every level, so that
// a field added to File later is held to it too.
func TestDefaultCopies(t *testing.T) {
	a, ca, err := DefaultOrigin()
	if err != nil {
		t.Fatal(err)
	}
	b, cb, err := DefaultOrigin()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || ca != cb {
		t.Fatal("two calls returned different calibrations")
	}
	if len(a.LeaveOneOut) == 0 || len(a.Calibration.OCScale) == 0 {
		t.Fatal("the embedded calibration lacks the parts this test checks")
	}
	if shared := sharedParts(a, b); len(shared) > 0 {
		t.Errorf("two callers share %v", shared)
	}
	// The embedded file has no range (it predates them); a file that has one.
	a.Range = &models.Range{Dtypes: []smart.Dtype{smart.Float64}, Grids: [][3]int{{64, 64, 1}}, GPUs: []string{"H100-SXM"}}
	if shared := sharedParts(a, a.clone()); len(shared) > 0 {
		t.Errorf("a clone shares %v", shared)
	}
	a.Calibration.OCScale["BASE"] = -1
	a.LeaveOneOut[0].Stencil = "changed"
	if c, _ := Default(); c.Calibration.OCScale["BASE"] == -1 || c.LeaveOneOut[0].Stencil == "changed" {
		t.Error("a caller's change reached the next caller")
	}
}

// sharedParts names the slices, maps and pointers at the same place in x and y that point to
// the same memory.
func sharedParts(x, y any) []string {
	var shared []string
	var walk func(path string, x, y reflect.Value)
	walk = func(path string, x, y reflect.Value) {
		switch x.Kind() {
		case reflect.Pointer:
			if x.IsNil() || y.IsNil() {
				return
			}
			if x.Pointer() == y.Pointer() {
				shared = append(shared, path)
			}
			walk(path, x.Elem(), y.Elem())
		case reflect.Slice:
			if x.Len() > 0 && y.Len() > 0 && x.Pointer() == y.Pointer() {
				shared = append(shared, path)
			}
			for i := range min(x.Len(), y.Len()) {
				walk(path+"[]", x.Index(i), y.Index(i))
			}
		case reflect.Map:
			if x.Len() > 0 && x.Pointer() == y.Pointer() {
				shared = append(shared, path)
			}
			for _, k := range x.MapKeys() {
				if v := y.MapIndex(k); v.IsValid() {
					walk(path+"[k]", x.MapIndex(k), v)
				}
			}
		case reflect.Struct:
			for i := range x.NumField() {
				walk(path+"."+x.Type().Field(i).Name, x.Field(i), y.Field(i))
			}
		}
	}
	walk("", reflect.ValueOf(x), reflect.ValueOf(y))
	return shared
}
