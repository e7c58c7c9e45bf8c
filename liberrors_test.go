package smart_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cliAdvice matches what only the command line may say: a flag, or a smart command to run.
var cliAdvice = regexp.MustCompile(`(^|[\s("])--[a-z]|\bsmart (bench|calibrate|campaign|codegen|dataset|estimate|eval|features|generate|gpus|predict|recommend|show|space|train|tune|verify)\b`)

// TestLibraryErrorsNameNoFlags holds the convention of docs/architecture.md: libraries return
// errors in their own terms and cmd/smart adds the flag or command to use. It reads the string
// literals of every errors.New, fmt.Errorf and app's wrong, and of every Error method, outside
// the programs.
func TestLibraryErrorsNameNoFlags(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case path == ".":
				return nil
			case strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", path == "cmd", path == "bench", path == "examples":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		check := func(n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && cliAdvice.MatchString(s) {
						t.Errorf("%s: a library error names the command line: %s", fset.Position(lit.Pos()), lit.Value)
					}
				}
				return true
			})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv != nil && n.Name.Name == "Error" && n.Body != nil {
					check(n.Body)
					return false
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "errors" && sel.Sel.Name == "New" || x.Name == "fmt" && sel.Sel.Name == "Errorf") {
						check(n)
						return false
					}
				}
				// app's SettingErrors, which cmd/smart turns into flag advice.
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "wrong" {
					check(n)
					return false
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
