package csvfile

import (
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	header := []string{"a", "b"}
	var got []string
	err := Read("f.csv", strings.NewReader("a,b\n1,2\n\"x,y\",3\n"), header, func(line int, rec []string) error {
		got = append(got, strings.Join(rec, "|")+"@"+string(rune('0'+line)))
		return nil
	})
	if err != nil || strings.Join(got, " ") != "1|2@2 x,y|3@3" {
		t.Fatalf("records %v, %v", got, err)
	}
	for text, want := range map[string]string{
		"":             "f.csv: the file is empty; it starts with the header a,b",
		"a,c\n1,2\n":   "f.csv:1: the header is a,c; want a,b",
		"a,b\n1,2,3\n": "f.csv: record on line 2: wrong number of fields",
		"a,b\n1\n":     "f.csv: record on line 2: wrong number of fields",
	} {
		err := Read("f.csv", strings.NewReader(text), header, func(int, []string) error { return nil })
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v; want %q", text, err, want)
		}
	}
}
