package predict

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"smart/data"
)

// TestEmbedded: every model both manifests list is described, under the name predictions cite
// it by, with the hash of the file the binary holds and the header's training data.
func TestEmbedded(t *testing.T) {
	got, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var files [][]byte
	for _, set := range []struct {
		read           func(string) ([]byte, error)
		manifest, name string
	}{{data.ModelFile, ManifestFile, "embedded "}, {data.MeasuredModelFile, "models.json", "embedded measured/"}} {
		man, err := embeddedManifest(set.read, set.manifest)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range man.Models {
			b, err := set.read(e.File)
			if err != nil {
				t.Fatal(err)
			}
			want, files = append(want, set.name+e.File), append(files, b)
		}
	}
	if len(got) != len(want) || len(want) < 6 {
		t.Fatalf("%d models described, the manifests list %d (at least 6 expected)", len(got), len(want))
	}
	ms, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	sel3, err := ms.model("select", 3)
	if err != nil {
		t.Fatal(err)
	}
	compared := false
	for i, m := range got {
		sum := sha256.Sum256(files[i])
		switch {
		case m.Name != want[i]:
			t.Errorf("model %d is %q, want %q", i, m.Name, want[i])
		case m.SHA256 != hex.EncodeToString(sum[:]):
			t.Errorf("%s: sha256 %s, not that of its file", m.Name, m.SHA256)
		case m.Created.IsZero() || len(m.Data) == 0 || m.Trained == nil || m.Kind == "":
			t.Errorf("%s: created %v, %d data sets, range %v, kind %q: the header's facts are missing", m.Name, m.Created, len(m.Data), m.Trained, m.Kind)
		case (m.GPU != "") != (m.Source == "measured"):
			t.Errorf("%s: GPU %q, source %s: the measured models are each of one GPU, the defaults of every GPU", m.Name, m.GPU, m.Source)
		}
		if m.Name != sel3.Name {
			continue
		}
		compared = true
		if m.Created != sel3.Header.Created || m.CV == nil || *m.CV != *sel3.Header.CV {
			t.Errorf("%s: created %v, cv %+v; the decoded model says %v, %+v", m.Name, m.Created, m.CV, sel3.Header.Created, sel3.Header.CV)
		}
	}
	if !compared {
		t.Errorf("no model described is named %q, as predictions name the 3-D classifier", sel3.Name)
	}
}
