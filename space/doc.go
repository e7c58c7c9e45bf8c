// Package space holds constrained search spaces: the settings a tuner may try, generated,
// stored and explored as ATF does (Rasch et al., sections 3 to 5), for any kernel (a Kernel
// Tuner space among them) and for the stencil setting space of each optimization combination.
//
// A Param has a name, a finite ordered list of integer values and constraints that may read it
// and the parameters defined before it; each Constraint declares what it reads. New finds the
// groups of interdependent parameters (union-find over what the constraints read), generates
// each group's valid values in parallel with every constraint checked at the level of the loop
// nest where the last parameter it reads is bound, and stores each group as a tree whose
// leaf counts give O(depth) index mapping. The space is the chain of these trees: its size is
// the product of the groups' sizes (exact, in math/big), its settings are numbered by a
// mixed-radix index, and there is never a flat list of all settings.
//
// A space answers: Count, At and IndexOf (index <-> setting), Random (uniform over the valid
// settings), Point and Coordinates (ATF's coordinate space (0,1]^L <-> setting), All
// (enumeration), and Check (why a setting is invalid: the first violated constraint and the
// values it read, an out-of-range value, or a missing or unknown parameter).
//
// ParseConstraint reads Kernel Tuner's Python restriction expressions, ParseBenchmarkSpec the
// parameters and restrictions of a space.json, and KernelTuner builds a Kernel Tuner search
// space from them. A float or string
// parameter's values are held as integer codes (LabelCode), which its restrictions read as the
// values they stand for.
//
// # The stencil setting space
//
// ForStencil(st, oc, gpu) is the space of csTuner Table I for one combination, with the
// parameters smart.ParamNames(st.Dims, oc). Numeric parameters are powers of two (as in csTuner)
// and bounded by the interior extent n-2r of their axis (n the grid extent, r the stencil's
// order): a tile longer than the points it computes only idles threads. Parameters are
// defined, and their constraints checked, in this order:
//
//	parameter              values                    constraints
//	bx, by, bz (3-D)       2^k <= 1024, 1024, 64      warp (32) <= bx*by*bz <= max threads per block (1024)
//	                       and <= n-2r
//	shared                 0, 1                      -
//	const                  0, 1                      const = 0, or nnz * element size <= constant memory
//	sd (ST)                1 .. dims                 the block size along axis sd is 1
//	sb (ST)                2^k <= the largest n-2r   sb <= n-2r along axis sd
//	tt (TB)                2, 4, 8                   shared = 1; tt <= the stencil's steps
//	bmx.. (BM), cmx.. (CM) 2^k <= n-2r of the axis   b*m <= n-2r along the axis; m = 1 along axis sd (ST);
//	                                                 with TB: tile + 2r*tt <= n along every axis
//	                                                 (the halo leaves a tile; tile = b*m, or sb along sd)
//	ufx.. (ST, BM, CM)     2^k <= n-2r of the axis   along sd: uf <= sb; along a merged axis: uf <= m;
//	                                                 otherwise uf = 1
//	b, m or sb of y and z  -                         the launch grid, one block per tile of the interior,
//	                                                 has at most 65535 blocks along y and z (CUDA's limit;
//	                                                 LaunchGrid); only where an interior is that long
//	the last one it reads  -                         resources: smart.DecodeTuning(...).Usage(st).Fits(gpu):
//	                                                 threads, registers per thread and per block,
//	                                                 shared memory per block
//
// tt is defined before the merging and unroll factors (smart.ParamNames lists it last) so that
// the resource constraint, checked early at their levels, sees the real tt. A constraint sits
// at the last parameter it reads: the halo constraint at the last merging factor, or at tt
// without merging.
//
// The resource constraint reads every parameter the estimate depends on: all but const, and
// without streaming all but the unroll factors. It is declared monotone in all of them but sd
// (usage only grows with a larger block, merge or unroll factor, sb, tt or shared = 1), so
// generation checks it at every level with the unbound parameters at their smallest values and
// prunes early; the tests compare the result with a brute-force enumeration.
//
// The constraints tie the parameters into two groups: {const} alone, and all the others, which
// the resource constraint and the tile constraints link. That is the structure the stencil
// space has: block sizes, merging, unrolling and fused steps compete for the same registers and
// shared memory, while where the coefficients live does not.
//
// Where generating a space costs more than the work it serves (a single prediction, estimate
// or code generation), Lazy keeps the parameters and their constraints only: it draws valid
// settings parameter by parameter, checks settings and lists their neighbours, with the
// generator's own checks; CheckStencilSetting checks one setting with Check's messages.
package space
