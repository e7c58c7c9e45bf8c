package dataset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Import reads the conditions of the space.json beside a cache: one that does not parse, or
// reads a name that is no parameter, fails the import naming the space.json and the expression,
// and nothing is written.
func TestImportRefusesBrokenConditions(t *testing.T) {
	for _, tc := range []struct {
		name, condition, want string
	}{
		{"unparsable", "a < 3 +", `constraint "a < 3 +": column`},
		{"unknown name", "c < 3", `condition "c < 3" reads c, which is not a parameter of kernel k`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cache := filepath.Join(dir, "A.json")
			os.WriteFile(cache, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a","b"],"tune_params":{"a":[1,2],"b":[1,2]},
				"objective":"time","cache":{"1,1":{"time":1},"2,2":{"time":4}}}`), 0o644)
			spaceFile := filepath.Join(dir, "space.json")
			os.WriteFile(spaceFile, []byte(`{"ConfigurationSpace":{"TuningParameters":[
				{"Name":"a","Type":"int","Values":"[1, 2]"},{"Name":"b","Type":"int","Values":"[1, 2]"}],
				"Conditions":[{"Expression":"a + b < 5"},{"Expression":"`+tc.condition+`"}]}}`), 0o644)
			out := filepath.Join(t.TempDir(), "set")
			_, err := Import(context.Background(), out, []string{cache}, ImportOptions{})
			if err == nil || !strings.HasPrefix(err.Error(), spaceFile+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one naming %s with %q", err, spaceFile, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written: %v", out, err)
			}
		})
	}
}

// TestImportChecksOutFirst: a directory that already holds a data set is refused before any
// file is read (a missing file would otherwise be the error, after minutes on large caches).
func TestImportChecksOutFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, MetaFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Import(context.Background(), dir, []string{filepath.Join(dir, "missing.json")}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "already holds a data set") {
		t.Errorf("Import into a data set: %v; want it refused for the directory, before reading", err)
	}
}
