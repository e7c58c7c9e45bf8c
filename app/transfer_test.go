package app

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTransferSettingsCheck(t *testing.T) {
	base := func(f func(*TransferSettings)) TransferSettings {
		s := TransferSettings{From: []string{"a.json"}, To: "a100"}
		f(&s)
		return s
	}
	for _, tc := range []struct {
		name  string
		s     TransferSettings
		field string
	}{
		{"defaults", base(func(*TransferSettings) {}), ""},
		{"level and share", base(func(s *TransferSettings) { s.Predict.Level, s.Predict.Share = 0.9, 1 }), ""},
		{"no sources", base(func(s *TransferSettings) { s.From = nil }), "From"},
		{"no target", base(func(s *TransferSettings) { s.To = "" }), "To"},
		{"level 1", base(func(s *TransferSettings) { s.Predict.Level = 1 }), "Level"},
		{"negative level", base(func(s *TransferSettings) { s.Predict.Level = -0.5 }), "Level"},
		{"NaN level", base(func(s *TransferSettings) { s.Predict.Level = math.NaN() }), "Level"},
		{"share above 1", base(func(s *TransferSettings) { s.Predict.Share = 1.1 }), "Share"},
		{"negative share", base(func(s *TransferSettings) { s.Predict.Share = -0.1 }), "Share"},
		{"NaN share", base(func(s *TransferSettings) { s.Predict.Share = math.NaN() }), "Share"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.s.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
	// OpenTransfer checks before it reads: the missing file is never opened.
	if _, err := OpenTransfer(base(func(s *TransferSettings) { s.Predict.Level = 2 })); refusedField(t, err) != "Level" {
		t.Errorf("OpenTransfer of a level out of range: %v", err)
	}
}

// TestTransferCheckWriteRefusesDot: a data set directory named "." (empty, so dataset.CheckNew
// takes it) cannot be written, since the data set is renamed into place whole:
// it is refused before anything is predicted, as a setting of the data set, not after.
func TestTransferCheckWriteRefusesDot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, dot := range []string{".", "./", ".//."} {
		err := (&TransferJob{}).CheckWrite("", dot, false)
		var se *SettingError
		if !errors.As(err, &se) || se.Field != "DataSet" || !strings.Contains(err.Error(), "renamed into place") {
			t.Errorf("data set %q: %v; want a refusal of the DataSet", dot, err)
		}
	}
	if err := (&TransferJob{}).CheckWrite("", dir, false); err != nil {
		t.Errorf("the same empty directory named by its path: %v", err)
	}
}

// TestTransferCheckWriteNamesToChange: a data set directory that holds something is a name to
// change (Wrong), as a cache smart did not write is; one that cannot be written in is a
// failure of the request.
func TestTransferCheckWriteNamesToChange(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "held")
	os.Mkdir(held, 0o755)
	os.WriteFile(filepath.Join(held, "notes.txt"), []byte("mine"), 0o644)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, tc := range []struct {
		name  string
		dir   string
		wrong bool
	}{
		{"holds files", held, true},
		{"under a file", filepath.Join(file, "ds"), false},
	} {
		err := (&TransferJob{}).CheckWrite("", tc.dir, false)
		var se *SettingError
		if !errors.As(err, &se) || se.Field != "DataSet" || se.Wrong != tc.wrong {
			t.Errorf("%s: %v (%+v); want a refusal of the DataSet, wrong %v", tc.name, err, se, tc.wrong)
		}
	}
}
