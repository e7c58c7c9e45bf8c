package cuda

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"smart"
)

//go:embed cxx/clang_prelude.h
var clangPrelude string

//go:embed cxx/emulation.h
var emulationPrelude string

//go:embed cxx/harness.h
var harnessHeader string

// Tolerance is the largest error verification accepts at a point, relative to the magnitude of
// the terms summed there (the stencil's |coefficients| applied to |values|, step after step),
// not to the result, which cancellation between coefficients of both signs can leave far below
// the rounding errors. It is 2*steps*(nnz+2)*u, u the unit roundoff of the element type (2^-24
// for float32, 2^-53 for float64): the worst-case bound of rounding nnz products and sums, the
// coefficient and the store at every step, in any order and with or without FMA contraction,
// doubled for the reference's own rounding.
func Tolerance(st *smart.Stencil) float64 {
	u := 0x1p-53
	if st.Dtype == smart.Float32 {
		u = 0x1p-24
	}
	return 2 * float64(st.Steps) * float64(st.NNZ()+2) * u
}

// batchSource is a batch of variants as two translation units: kernels.cu (the preamble and
// every variant's namespace, for clang and g++) and harness.cpp (the harness, kernels.cu, each
// variant's case and main). lines[i] is the first line of variant i in kernels.cu.
type batchSource struct {
	kernels, harness string
	lines            []int
}

// buildBatch writes the sources for kernels ks; case i of the harness checks ks[i] on its stencil
// sts[i] from random data seeded by seed. The harness main takes the first case to run.
func buildBatch(ks []*Kernel, sts []*smart.Stencil, seed uint64) batchSource {
	var b batchSource
	var kern strings.Builder
	kern.WriteString(Preamble)
	line := strings.Count(Preamble, "\n") + 1
	for _, k := range ks {
		b.lines = append(b.lines, line)
		kern.WriteString(k.Source)
		line += strings.Count(k.Source, "\n")
	}
	b.kernels = kern.String()

	var h writer
	h.line("#include \"harness.h\"")
	h.line("#include \"kernels.cu\"")
	for i, st := range sts {
		var pts []string
		for _, p := range st.Points {
			pts = append(pts, fmt.Sprintf("{%d, %d, %d, %s}", p.Off[0], p.Off[1], p.Off[2], hexFloat(p.Coef)))
		}
		h.line("static const smart_check::Point points%d[] = {%s};", i, strings.Join(pts, ", "))
		h.line("static const smart_check::Case case%d = {%d, %d, %d, %d, %d, %d, points%d, %d, %s};", i, st.Dims,
			st.Grid[0], st.Grid[1], st.Grid[2], st.Order(), st.Steps, i, len(pts), hexFloat(Tolerance(st)))
	}
	h.line("int main(int argc, char** argv) {")
	h.line("const int from = argc > 1 ? std::atoi(argv[1]) : 0;")
	h.line("for (int i = from; i < %d; ++i) {", len(ks))
	h.line("switch (i) {")
	for i, k := range ks {
		h.line("case %d: smart_check::check<%s::real>(%d, case%d, %s::run, %dULL); break;", i, k.Name, i, i, k.Name, seed)
	}
	h.line("}")
	h.line("}")
	h.line("std::printf(\"DONE\\n\");")
	h.line("return 0;")
	h.line("}")
	b.harness = h.String()
	return b
}

// variantAt returns the variant whose source holds line of kernels.cu, or -1.
func (b batchSource) variantAt(line int) int {
	v := -1
	for i, first := range b.lines {
		if line >= first {
			v = i
		}
	}
	return v
}

func hexFloat(f float64) string { return strconv.FormatFloat(f, 'x', -1, 64) }
