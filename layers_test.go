package smart_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestImportLayers holds the code to docs/architecture.md: every package of the module is in its
// table of layers, and none imports a package of a higher layer.
func TestImportLayers(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	// | layer | packages | job |: packages in backquotes, a trailing /* for a tree.
	layerOf := map[string]int{}
	var trees []struct {
		prefix string
		layer  int
	}
	row := regexp.MustCompile(`(?m)^\| (\d) \| (.*?) \|`)
	name := regexp.MustCompile("`([^`]+)`")
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		layer, _ := strconv.Atoi(m[1])
		for _, n := range name.FindAllStringSubmatch(m[2], -1) {
			p := strings.TrimSuffix(strings.Fields(n[1])[0], " (root)")
			switch {
			case p == "smart":
				layerOf["smart"] = layer
			case strings.HasSuffix(p, "/*"):
				trees = append(trees, struct {
					prefix string
					layer  int
				}{"smart/" + strings.TrimSuffix(p, "*"), layer})
			default:
				layerOf["smart/"+p] = layer
			}
		}
	}
	lookup := func(pkg string) (int, bool) {
		if l, ok := layerOf[pkg]; ok {
			return l, true
		}
		for _, tr := range trees {
			if strings.HasPrefix(pkg, tr.prefix) {
				return tr.layer, true
			}
		}
		return 0, false
	}
	imports := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := "smart"
		if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
			pkg += "/" + dir
		}
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "smart" || strings.HasPrefix(p, "smart/") {
				imports[pkg][p] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 20 {
		t.Fatalf("found %d packages; the walk is broken", len(imports))
	}
	for pkg, ims := range imports {
		l, ok := lookup(pkg)
		if !ok {
			t.Errorf("package %s is in no layer of docs/architecture.md", pkg)
			continue
		}
		for im := range ims {
			if il, ok := lookup(im); ok && il > l {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports point down the layers (docs/architecture.md)", pkg, l, im, il)
			}
		}
	}
}
