package tuner_test

import (
	"bufio"
	"bytes"
	"context"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"smart"
	"smart/tuner"
)

// nullEvaluator stands for a prior: the registry only passes it on.
type nullEvaluator struct{}

func (nullEvaluator) Evaluate(context.Context, smart.Query) (smart.Measurement, error) {
	return smart.Measurement{}, nil
}

func TestStrategies(t *testing.T) {
	all := tuner.Options{Batch: 3, Model: tuner.KNN, PickRatio: 0.2, CutRatio: 0.3, Threads: 2, Initial: 7, Variants: 4, Prior: nullEvaluator{}}
	want := map[string]tuner.Method{
		"random":     &tuner.Random{Batch: 3},
		"exhaustive": tuner.Exhaustive{},
		"iterml":     &tuner.IterML{Model: tuner.KNN, PickRatio: 0.2, CutRatio: 0.3, Threads: 2},
		"cstuner":    &tuner.CSTuner{Initial: 7},
		"pipeline":   &tuner.Pipeline{Variants: 4, Surrogate: nullEvaluator{}},
		"bayes":      &tuner.Bayes{Batch: 3, Prior: nullEvaluator{}},
		"descent":    &tuner.Descent{Samples: 7, Restart: true},
	}
	// One option set at a time, to its value in all: a strategy that does not take it must
	// build what it builds from no options.
	one := []func(*tuner.Options){
		tuner.OptionBatch:     func(o *tuner.Options) { o.Batch = all.Batch },
		tuner.OptionModel:     func(o *tuner.Options) { o.Model = all.Model },
		tuner.OptionPickRatio: func(o *tuner.Options) { o.PickRatio = all.PickRatio },
		tuner.OptionCutRatio:  func(o *tuner.Options) { o.CutRatio = all.CutRatio },
		tuner.OptionThreads:   func(o *tuner.Options) { o.Threads = all.Threads },
		tuner.OptionInitial:   func(o *tuner.Options) { o.Initial = all.Initial },
		tuner.OptionVariants:  func(o *tuner.Options) { o.Variants = all.Variants },
		tuner.OptionPrior:     func(o *tuner.Options) { o.Prior = all.Prior },
	}
	seen := map[string]bool{}
	for _, s := range tuner.Strategies() {
		seen[s.Name] = true
		m := s.New(all)
		if m.Name() != s.Name {
			t.Errorf("strategy %q builds %q", s.Name, m.Name())
		}
		if !reflect.DeepEqual(m, want[s.Name]) {
			t.Errorf("strategy %q with every option: %#v, want %#v", s.Name, m, want[s.Name])
		}
		if got, ok := tuner.LookupStrategy(s.Name); !ok || got.Name != s.Name {
			t.Errorf("LookupStrategy(%q) = %q, %v", s.Name, got.Name, ok)
		}
		for o, set := range one {
			var opts tuner.Options
			set(&opts)
			changed := !reflect.DeepEqual(s.New(opts), s.New(tuner.Options{}))
			if changed != s.Reads(tuner.Option(o)) {
				t.Errorf("strategy %q: option %d changes the method: %v; Reads says %v", s.Name, o, changed, s.Reads(tuner.Option(o)))
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("strategies %v, want those of %v", seen, want)
	}
	if _, ok := tuner.LookupStrategy("annealing"); ok {
		t.Error("LookupStrategy finds a strategy that does not exist")
	}
}

// TestStrategiesApart holds the package's layout: a strategy's file (one declaring a type that
// implements Method) is its own, and no other file uses what it declares unexported; what
// strategies share lives in files of its own.
func TestStrategiesApart(t *testing.T) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", "smart/tuner").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if f := strings.Fields(sc.Text()); len(f) == 2 {
			exports[f[0]] = f[1]
		}
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	pkg, err := conf.Check("smart/tuner", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	method := pkg.Scope().Lookup("Method").Type().Underlying().(*types.Interface)
	fileOf := func(pos token.Pos) string { return filepath.Base(fset.Position(pos).Filename) }
	strategyFiles := map[string]bool{}
	for _, name := range pkg.Scope().Names() {
		if tn, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok && !types.IsInterface(tn.Type()) {
			if types.Implements(tn.Type(), method) || types.Implements(types.NewPointer(tn.Type()), method) {
				strategyFiles[fileOf(tn.Pos())] = true
			}
		}
	}
	for _, want := range []string{"random.go", "exhaustive.go", "iterml.go", "cstuner.go", "pipeline.go", "bayes.go"} {
		if !strategyFiles[want] {
			t.Errorf("%s declares no strategy; found them in %v", want, strategyFiles)
		}
	}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || obj.Exported() {
			continue
		}
		def, use := fileOf(obj.Pos()), fileOf(id.Pos())
		if strategyFiles[def] && def != use {
			t.Errorf("%s uses %s, declared in the strategy file %s: move it to a file of shared machinery", fset.Position(id.Pos()), obj.Name(), def)
		}
	}
}
