package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"smart/calibrate"
	"smart/catalog"
	"smart/models/roofline"
)

func main() {
	cat, _ := catalog.Default()
	d, err := calibrate.Load(strings.Split(os.Args[1], ","), cat)
	if err != nil {
		panic(err)
	}
	f, _ := calibrate.Default()
	cal := &f.Calibration
	type acc struct{ sum, sq float64; n int }
	by := map[string]*acc{}
	add := func(k string, x float64) {
		a := by[k]
		if a == nil {
			a = &acc{}
			by[k] = a
		}
		a.sum += x
		a.sq += x * x
		a.n++
	}
	for _, g := range d.Groups {
		var r []float64
		var keys [][]string
		for i, s := range g.Samples {
			e, err := roofline.ModelWith(s.Stencil, s.Tuning, s.GPU, cal)
			if err != nil {
				continue
			}
			r = append(r, math.Log(s.TimeMs/e.TimeMs))
			var ks []string
			dims := s.Stencil.Dims
			for p, v := range g.Settings[i] {
				ks = append(ks, fmt.Sprintf("%dd %s=%d", dims, p, v))
			}
			ks = append(ks, fmt.Sprintf("%dd elem=%s", dims, s.Stencil.Dtype))
			ks = append(ks, fmt.Sprintf("%dd order=%d", dims, s.Stencil.Order()))
			ks = append(ks, fmt.Sprintf("%dd bound=%s", dims, e.Bound))
			keys = append(keys, ks)
		}
		sr := append([]float64(nil), r...)
		sort.Float64s(sr)
		med := sr[len(sr)/2]
		for i, x := range r {
			for _, k := range keys[i] {
				add(k, x-med)
			}
			add("all", x-med)
		}
	}
	var ks []string
	for k := range by {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		a := by[k]
		m := a.sum / float64(a.n)
		sd := math.Sqrt(a.sq/float64(a.n) - m*m)
		if a.n >= 100 {
			fmt.Printf("%-28s n=%5d mean %+.3f sd %.3f\n", k, a.n, m, sd)
		}
	}
}
