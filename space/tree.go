package space

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// group is the tree of one group of interdependent parameters. Tree level l holds the values of
// the group's l-th parameter; a path from the root to a leaf is a valid setting of the group.
//
// The tree is stored level by level rather than as linked nodes: the children of a node are
// contiguous in the next level, so a node is an index and costs 4 bytes at the leaf level and
// 16 bytes above it. Every node has at least one leaf below it (branches that dead-end in a
// constraint are pruned), which keeps the index and coordinate mappings onto valid settings.
type group struct {
	params []int     // indices into the space's params, definition order
	checks [][]check // checks[l]: the constraints of level l's parameter
	lv     []level
	n      uint64 // number of leaves: valid settings of the group
}

// check is a constraint bound to the levels of the group that hold the values it reads. An
// early check of a monotone constraint runs at a level above some of its reads and puts the
// values of those at their smallest (lowest).
type check struct {
	c      *Constraint
	pos    []int
	lowest []int
}

type level struct {
	val []int32 // position of the node's value in its parameter's Values
	// Only levels above the leaves have child and first, each with a sentinel at the end:
	// node i's children are child[i]:child[i+1] of the next level, and first[i] is the number
	// of leaves before node i, so first[i]:first[i+1] are the leaf indices under it.
	child []uint32
	first []uint64
}

func newGroup(params []Param, members []int, index map[string]int) *group {
	g := &group{params: members, checks: make([][]check, len(members)), lv: make([]level, len(members))}
	at := make(map[int]int, len(members)) // parameter index -> level
	for l, p := range members {
		at[p] = l
	}
	for l, p := range members {
		for ci := range params[p].Constraints {
			c := &params[p].Constraints[ci]
			ch := check{c: c, pos: make([]int, len(c.Reads)), lowest: make([]int, len(c.Reads))}
			bound := 0 // the level from which the reads it is not monotone in are bound
			for j, r := range c.Reads {
				ch.pos[j] = at[index[r]]
				ch.lowest[j] = slices.Min(params[index[r]].Values)
				if !slices.Contains(c.Monotone, r) {
					bound = max(bound, ch.pos[j])
				}
			}
			// early checks at the levels that bind a read, from where the rest may be
			// put at their smallest values, to the constraint's own level
			for el := range l {
				if el >= bound && slices.Contains(ch.pos, el) {
					g.checks[el] = append(g.checks[el], ch)
				}
			}
			g.checks[l] = append(g.checks[l], ch)
		}
	}
	return g
}

// buildGroups generates every group's tree, the groups and the subtrees of each group in
// parallel on a pool of GOMAXPROCS workers (ATF Listing 2 with its first loops parallel).
func buildGroups(ctx context.Context, params []Param, groups []*group) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	type job struct {
		b      *builder
		prefix []int32
		out    *[]level
	}
	jobs := make(chan job)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				lv, err := j.b.subtree(ctx, j.prefix)
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					cancel()
					continue
				}
				*j.out = lv
			}
		}()
	}
	// Split every group into subtrees below prefixes of its first levels, enough of them to
	// keep the workers busy, then merge each group's subtrees in prefix order.
	type split struct {
		b        *builder
		prefixes [][]int32
		outs     [][]level
	}
	splits := make([]split, len(groups))
	for gi, g := range groups {
		b := newBuilder(params, g)
		prefixes := b.prefixes(4 * workers)
		splits[gi] = split{b: b, prefixes: prefixes, outs: make([][]level, len(prefixes))}
	}
send:
	for gi := range splits {
		sp := &splits[gi]
		for i, p := range sp.prefixes {
			select {
			case jobs <- job{b: sp.b, prefix: p, out: &sp.outs[i]}:
			case <-ctx.Done():
				break send
			}
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("generating the search space: %w", err)
	}
	for gi, g := range groups {
		if err := g.merge(splits[gi].prefixes, splits[gi].outs); err != nil {
			return err
		}
	}
	return nil
}

// builder generates the subtrees of one group.
type builder struct {
	g      *group
	values [][]int // values[l]: the values of level l's parameter
}

func newBuilder(params []Param, g *group) *builder {
	b := &builder{g: g, values: make([][]int, len(g.params))}
	for l, p := range g.params {
		b.values[l] = params[p].Values
	}
	return b
}

// walker is the state of one depth-first generation.
type walker struct {
	*builder
	cur  []int // the value bound at each level
	args []int
	lv   []level
	ctx  context.Context
	err  error
	tick int
}

func (b *builder) walker(ctx context.Context) *walker {
	most := 0
	for _, cs := range b.g.checks {
		for _, c := range cs {
			most = max(most, len(c.pos))
		}
	}
	return &walker{builder: b, cur: make([]int, len(b.values)), args: make([]int, most), ctx: ctx}
}

// ok reports whether level l's value satisfies the constraints of level l.
func (w *walker) ok(l int) bool {
	for _, ch := range w.g.checks[l] {
		a := w.args[:len(ch.pos)]
		for j, p := range ch.pos {
			if p <= l {
				a[j] = w.cur[p]
			} else {
				a[j] = ch.lowest[j]
			}
		}
		if !ch.c.Fn(a) {
			return false
		}
	}
	return true
}

// prefixes lists the valid value prefixes of the group's first t levels, t the smallest depth
// that gives at least want prefixes, but leaving at least one level below them.
func (b *builder) prefixes(want int) [][]int32 {
	depth := len(b.values)
	w := b.walker(context.Background())
	var out [][]int32
	var rec func(l, t int, p []int32)
	rec = func(l, t int, p []int32) {
		if l == t {
			out = append(out, append([]int32(nil), p...))
			return
		}
		for vi, v := range b.values[l] {
			w.cur[l] = v
			if w.ok(l) {
				rec(l+1, t, append(p, int32(vi)))
			}
		}
	}
	for t := 0; ; t++ {
		out = out[:0]
		rec(0, t, make([]int32, 0, t))
		if len(out) >= want || t+1 >= depth || len(out) == 0 {
			return out
		}
	}
}

// subtree generates the levels below a prefix (value positions of the first len(prefix)
// levels), with child indices local to the subtree. It returns nil levels when no leaf is
// below the prefix.
func (b *builder) subtree(ctx context.Context, prefix []int32) ([]level, error) {
	w := b.walker(ctx)
	for l, vi := range prefix {
		w.cur[l] = b.values[l][vi]
	}
	t := len(prefix)
	w.lv = make([]level, len(b.values))
	if !w.visit(t) {
		return nil, w.err
	}
	if w.err != nil {
		return nil, w.err
	}
	for l := t; l < len(w.lv)-1; l++ {
		w.lv[l].child = append(w.lv[l].child, uint32(len(w.lv[l+1].val)))
	}
	return w.lv[t:], nil
}

// visit binds every valid value at level l and descends; it reports whether a leaf was added.
// A node is appended after its subtree, and only if the subtree has a leaf, so dead branches
// leave nothing behind and the children of each node stay contiguous.
func (w *walker) visit(l int) bool {
	if w.tick++; w.tick&0xfff == 0 && w.ctx.Err() != nil {
		w.err = fmt.Errorf("generating the search space: %w", w.ctx.Err())
	}
	if w.err != nil {
		return false
	}
	last := l == len(w.values)-1
	added := false
	for vi, v := range w.values[l] {
		w.cur[l] = v
		if !w.ok(l) {
			continue
		}
		if last {
			w.lv[l].val = append(w.lv[l].val, int32(vi))
			added = true
			continue
		}
		start := len(w.lv[l+1].val)
		if w.visit(l + 1) {
			w.lv[l].val = append(w.lv[l].val, int32(vi))
			w.lv[l].child = append(w.lv[l].child, uint32(start))
			added = true
		}
	}
	return added
}

// merge joins the subtrees generated below the prefixes (in prefix order) into the group's
// tree and computes the leaf counts.
func (g *group) merge(prefixes [][]int32, outs [][]level) error {
	depth := len(g.params)
	var last []int32 // the last prefix inserted
	for i, sub := range outs {
		if sub == nil {
			continue
		}
		p := prefixes[i]
		t := len(p)
		c := 0
		for c < len(last) && c < t && last[c] == p[c] {
			c++
		}
		for l := c; l < t; l++ {
			g.lv[l].val = append(g.lv[l].val, p[l])
			g.lv[l].child = append(g.lv[l].child, uint32(len(g.lv[l+1].val)))
		}
		last = p
		offs := make([]int, depth+1)
		for l := t; l < depth; l++ {
			offs[l] = len(g.lv[l].val)
		}
		for j, sl := range sub {
			l := t + j
			if len(g.lv[l].val)+len(sl.val) > 1<<32-1 {
				return fmt.Errorf("level %d of a group has more than 2^32 nodes; constrain the space further", l)
			}
			g.lv[l].val = append(g.lv[l].val, sl.val...)
			if l < depth-1 {
				for _, ch := range sl.child[:len(sl.child)-1] {
					g.lv[l].child = append(g.lv[l].child, ch+uint32(offs[l+1]))
				}
			}
		}
	}
	for l := 0; l < depth-1; l++ {
		g.lv[l].child = append(g.lv[l].child, uint32(len(g.lv[l+1].val)))
	}
	g.n = uint64(len(g.lv[depth-1].val))
	for l := depth - 2; l >= 0; l-- {
		lv := &g.lv[l]
		lv.first = make([]uint64, len(lv.val)+1)
		for i, ch := range lv.child {
			lv.first[i] = g.firstLeaf(l+1, int(ch))
		}
	}
	return nil
}

// firstLeaf is the number of leaves before node i of level l (i may be the level's length).
func (g *group) firstLeaf(l, i int) uint64 {
	if l == len(g.lv)-1 {
		return uint64(i)
	}
	return g.lv[l].first[i]
}

// path writes the value positions of leaf idx (idx < g.n), one per level, into dst.
func (g *group) path(idx uint64, dst []int32) {
	lo, hi := 0, len(g.lv[0].val)
	for l := 0; l < len(g.lv)-1; l++ {
		f := g.lv[l].first
		// the last node in lo:hi whose first leaf is at or before idx
		a, b := lo, hi
		for b-a > 1 {
			m := int(uint(a+b) >> 1)
			if f[m] <= idx {
				a = m
			} else {
				b = m
			}
		}
		dst[l] = g.lv[l].val[a]
		lo, hi = int(g.lv[l].child[a]), int(g.lv[l].child[a+1])
	}
	dst[len(g.lv)-1] = g.lv[len(g.lv)-1].val[idx]
}

// children returns the node range of level l below node i of level l-1 (the root for l=0).
func (g *group) children(l, i int) (lo, hi int) {
	if l == 0 {
		return 0, len(g.lv[0].val)
	}
	return int(g.lv[l-1].child[i]), int(g.lv[l-1].child[i+1])
}

// find returns the node of level l in lo:hi whose value position is vi, or -1. Siblings are in
// value order, so this is a binary search.
func (g *group) find(l, lo, hi int, vi int32) int {
	val := g.lv[l].val
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case val[m] == vi:
			return m
		case val[m] < vi:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}
