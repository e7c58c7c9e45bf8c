package models

import (
	"encoding/json"
	"testing"
)

// TestInstancesRoundTrip: the instances a header records are found after a JSON round trip,
// others are not, and each counts once.
func TestInstancesRoundTrip(t *testing.T) {
	keys := []string{InstanceKey("433dc349080b0b78", "H100-SXM"), InstanceKey("433dc349080b0b78", "H200"),
		InstanceKey("convolution_kernel", "A100-40GB"), InstanceKey("433dc349080b0b78", "H100-SXM")}
	b, err := json.Marshal(NewInstances(keys))
	if err != nil {
		t.Fatal(err)
	}
	var in Instances
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if in.Count != 3 {
		t.Errorf("count %d; want the 3 distinct instances", in.Count)
	}
	for _, k := range keys {
		if !in.Has(k) {
			t.Errorf("%s not found after the round trip %s", k, b)
		}
	}
	for _, k := range []string{InstanceKey("433dc349080b0b78", "A100-40GB"), InstanceKey("convolution_kernel", "H100-SXM"), "", "433dc349080b0b78|H100-SXM "} {
		if in.Has(k) {
			t.Errorf("%q found; it was not trained on", k)
		}
	}
	if bad := (&Instances{Count: 1, Hashes: "not base64!"}); bad.Has(keys[0]) {
		t.Error("hashes that do not decode hold an instance")
	}
}
