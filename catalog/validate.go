package catalog

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"smart"
)

// FieldError is a validation failure that names the file, the GPU and the field.
type FieldError struct {
	File    string // catalogue file; empty when a GPU is validated on its own
	GPU     string // the GPU's name, or its position (gpus[3]) when it has none
	Field   string // JSON name of the field
	Problem string // what is wrong and how to fix it
}

func (e *FieldError) Error() string {
	where := fmt.Sprintf("GPU %q: field %q", e.GPU, e.Field)
	if e.File != "" {
		where = e.File + ": " + where
	}
	return where + ": " + e.Problem
}

// fieldNames lists the JSON names of smart.GPU's fields in declaration order, read from its
// tags once: every entry of a catalogue file is checked against them. Read it, do not change it.
var fieldNames = func() []string {
	t := reflect.TypeFor[smart.GPU]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}()

// number is one numeric field of a GPU with the rule it must meet.
type number struct {
	name     string
	value    float64
	optional bool // zero allowed (and then needs no source)
}

// maxNumber bounds every numeric field: a thousand times any GPU's largest (registers per SM),
// and small enough that sizes in KiB or MiB turned into bytes stay far from overflowing an int.
const maxNumber = 1 << 30

func numbers(g smart.GPU) []number {
	return []number{
		{"sms", float64(g.SMs), false},
		{"dies", float64(g.Dies), true},
		{"memory_gb", g.MemoryGB, false},
		{"bandwidth_gbs", g.BandwidthGBs, false},
		{"l2_mb", g.L2MB, false},
		{"shared_per_sm_kb", float64(g.SharedPerSMKB), false},
		{"shared_per_block_kb", float64(g.SharedPerBlockKB), false},
		{"regs_per_sm", float64(g.RegsPerSM), false},
		{"regs_per_block", float64(g.RegsPerBlock), false},
		{"max_regs_per_thread", float64(g.MaxRegsPerThread), false},
		{"max_threads_per_sm", float64(g.MaxThreadsPerSM), false},
		{"max_threads_per_block", float64(g.MaxThreadsPerBlk), false},
		{"max_blocks_per_sm", float64(g.MaxBlocksPerSM), false},
		{"fp64_tflops", g.FP64TFLOPS, false},
		{"fp32_tflops", g.FP32TFLOPS, false},
		{"boost_clock_mhz", float64(g.BoostClockMHz), false},
		{"constant_memory_kb", float64(g.ConstantMemoryKB), false},
		{"warp_size", float64(g.WarpSize), false},
	}
}

// nameChars are the characters of a name or alias: names are printed in tables and terminals,
// where a control character could rewrite them and a bidirectional override show them
// reordered, and they are looked up ignoring all but their letters and digits.
const nameChars = `A-Za-z0-9 ._/()+-`

var (
	ccPattern    = regexp.MustCompile(`^[1-9][0-9]?\.[0-9]$`)
	namePattern  = regexp.MustCompile(`^[A-Za-z0-9][` + nameChars + `]{0,63}$`)
	aliasPattern = regexp.MustCompile(`^[A-Za-z0-9][` + nameChars + `]{0,127}$`)
)

// aliasProblem is what is wrong with an alias, by the rule of names but for its length, or "".
func aliasProblem(a string) string {
	if aliasPattern.MatchString(a) {
		return ""
	}
	return fmt.Sprintf("is %q; use 1 to 128 letters, digits, spaces and ._/()+- starting with a letter or digit, as in a name", a)
}

// Validate checks one GPU: names, positive and consistent numbers, the price, and a source for
// every number. The error is a *FieldError naming the GPU and field (File is left empty).
func Validate(g smart.GPU) error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{GPU: g.Name, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	if !namePattern.MatchString(g.Name) {
		return bad("name", "is %q; use 1 to 64 letters, digits, spaces and ._/()+- starting with a letter or digit", g.Name)
	}
	for i, a := range g.Aliases {
		if p := aliasProblem(a); p != "" {
			return bad(fmt.Sprintf("aliases[%d]", i), "%s", p)
		}
	}
	switch g.Vendor {
	case "NVIDIA":
		if !ccPattern.MatchString(g.ComputeCapability) {
			return bad("compute_capability", "is %q; an NVIDIA GPU needs its compute capability as major.minor, e.g. \"8.0\"", g.ComputeCapability)
		}
	case "AMD":
	default:
		return bad("vendor", "is %q; use \"NVIDIA\" or \"AMD\"", g.Vendor)
	}
	if strings.TrimSpace(g.Arch) == "" {
		return bad("arch", "is empty; give the architecture, e.g. \"Ampere\"")
	}
	var missing []string // all of them at once: a new entry often lacks several
	for _, n := range numbers(g) {
		switch {
		case math.IsNaN(n.value) || math.IsInf(n.value, 0) || n.value < 0:
			return bad(n.name, "is %v; give a finite number that is not negative", n.value)
		case n.value > maxNumber:
			return bad(n.name, "is %v; no GPU comes near that (at most %g): give it in the field's unit", n.value, float64(maxNumber))
		case n.value == 0 && !n.optional:
			missing = append(missing, n.name)
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		return bad(missing[0], "is missing or 0; every GPU needs it (see data/gpus.json for examples)")
	default:
		return bad(missing[0], "is missing or 0, and so are %s; every GPU needs them (see data/gpus.json for examples)", quoteList(missing[1:]))
	}
	for _, n := range numbers(g) {
		if n.value == 0 {
			continue
		}
		if src := g.Sources[n.name]; strings.TrimSpace(src) == "" && strings.TrimSpace(g.Sources["*"]) == "" {
			return bad("sources", "has no source for %q; add \"%s\": \"the datasheet, whitepaper or table it comes from\" (or \"*\" for all fields)", n.name, n.name)
		}
	}
	if g.WarpSize != 32 && g.WarpSize != 64 {
		return bad("warp_size", "is %d; a warp or wavefront has 32 or 64 threads", g.WarpSize)
	}
	switch {
	case g.SharedPerBlockKB > g.SharedPerSMKB:
		return bad("shared_per_block_kb", "is %d, more than shared_per_sm_kb (%d)", g.SharedPerBlockKB, g.SharedPerSMKB)
	case g.RegsPerBlock > g.RegsPerSM:
		return bad("regs_per_block", "is %d, more than regs_per_sm (%d)", g.RegsPerBlock, g.RegsPerSM)
	case g.MaxRegsPerThread > g.RegsPerBlock:
		return bad("max_regs_per_thread", "is %d, more than regs_per_block (%d)", g.MaxRegsPerThread, g.RegsPerBlock)
	case g.MaxThreadsPerBlk > g.MaxThreadsPerSM:
		return bad("max_threads_per_block", "is %d, more than max_threads_per_sm (%d)", g.MaxThreadsPerBlk, g.MaxThreadsPerSM)
	case g.MaxThreadsPerBlk%g.WarpSize != 0:
		return bad("max_threads_per_block", "is %d, not a multiple of the warp size %d", g.MaxThreadsPerBlk, g.WarpSize)
	case g.Dies > 1 && g.SMs%g.Dies != 0:
		return bad("dies", "is %d, which does not divide the %d SMs evenly", g.Dies, g.SMs)
	}
	if err := validatePrice(g); err != nil {
		return err
	}
	for k := range g.Sources {
		if k != "*" && !slices.Contains(fieldNames, k) {
			return bad("sources", "has key %q, which is not a GPU field; use a field name such as \"bandwidth_gbs\", or \"*\"", k)
		}
	}
	return nil
}

// quoteList writes names quoted and joined by commas.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// maxUSDPerHour bounds a price: far above any GPU's, and low enough that a cost over any
// workload smart accepts stays finite.
const maxUSDPerHour = 1e4

func validatePrice(g smart.GPU) error {
	p := g.Price
	if p == nil {
		return nil
	}
	bad := func(field, format string, args ...any) error {
		return &FieldError{GPU: g.Name, Field: "price." + field, Problem: fmt.Sprintf(format, args...)}
	}
	switch {
	case !(p.USDPerHour > 0) || p.USDPerHour > maxUSDPerHour:
		return bad("usd_per_hour", "is %v; give the on-demand price per GPU and hour in US dollars (at most %g)", p.USDPerHour, float64(maxUSDPerHour))
	case strings.TrimSpace(p.Provider) == "":
		return bad("provider", "is empty; name the cloud, e.g. \"AWS\"")
	case strings.TrimSpace(p.Region) == "":
		return bad("region", "is empty; name the region the price holds in, e.g. \"us-east-1\"")
	case strings.TrimSpace(p.Instance) == "":
		return bad("instance", "is empty; name the instance type, e.g. \"p4d.24xlarge\"")
	}
	if _, err := time.Parse(time.DateOnly, p.Read); err != nil {
		return bad("read", "is %q; give the date the price was read as YYYY-MM-DD", p.Read)
	}
	if strings.TrimSpace(g.Sources["price"]) == "" && strings.TrimSpace(g.Sources["*"]) == "" {
		return &FieldError{GPU: g.Name, Field: "sources", Problem: "has no source for \"price\"; add \"price\": \"the pricing page it was read from\""}
	}
	return nil
}

// guideLimits are the per-SM and per-block limits of a compute capability, in the units of the
// catalogue's fields.
type guideLimits struct {
	sharedPerSMKB, sharedPerBlockKB, regsPerSM, regsPerBlock, maxRegsPerThread      int
	maxThreadsPerSM, maxThreadsPerBlock, maxBlocksPerSM, constantMemoryKB, warpSize int

	arch string // the capability's architecture, as NVIDIA names it
}

// limitsOf returns the limits of compute capability cc as the CUDA C++ Programming Guide's table
// "Technical Specifications per Compute Capability" gives them (shared memory per block: the
// opt-in maximum), and false for a capability the table here lacks. Capability 12.0's 100 KB per
// SM is the table's figure and what the driver reports; the Blackwell tuning guide's 128 KB is
// the unified L1 and shared memory.
func limitsOf(cc string) (guideLimits, bool) {
	l := guideLimits{regsPerSM: 65536, regsPerBlock: 65536, maxRegsPerThread: 255, maxThreadsPerSM: 2048,
		maxThreadsPerBlock: 1024, maxBlocksPerSM: 32, constantMemoryKB: 64, warpSize: 32}
	switch cc {
	case "3.5":
		l.arch = "Kepler"
		l.sharedPerSMKB, l.sharedPerBlockKB, l.maxBlocksPerSM = 48, 48, 16
	case "3.7":
		l.arch = "Kepler"
		l.sharedPerSMKB, l.sharedPerBlockKB, l.maxBlocksPerSM, l.regsPerSM = 112, 48, 16, 131072
	case "6.0":
		l.arch = "Pascal"
		l.sharedPerSMKB, l.sharedPerBlockKB = 64, 48
	case "5.2":
		l.arch = "Maxwell"
		l.sharedPerSMKB, l.sharedPerBlockKB = 96, 48
	case "6.1":
		l.arch = "Pascal"
		l.sharedPerSMKB, l.sharedPerBlockKB = 96, 48
	case "7.0":
		l.arch = "Volta"
		l.sharedPerSMKB, l.sharedPerBlockKB = 96, 96
	case "7.5":
		l.arch = "Turing"
		l.sharedPerSMKB, l.sharedPerBlockKB, l.maxThreadsPerSM, l.maxBlocksPerSM = 64, 64, 1024, 16
	case "8.0":
		l.arch = "Ampere"
		l.sharedPerSMKB, l.sharedPerBlockKB = 164, 163
	case "8.6":
		l.arch = "Ampere"
		l.sharedPerSMKB, l.sharedPerBlockKB, l.maxThreadsPerSM, l.maxBlocksPerSM = 100, 99, 1536, 16
	case "8.9":
		l.arch = "Ada Lovelace"
		l.sharedPerSMKB, l.sharedPerBlockKB, l.maxThreadsPerSM, l.maxBlocksPerSM = 100, 99, 1536, 24
	case "9.0":
		l.arch = "Hopper"
		l.sharedPerSMKB, l.sharedPerBlockKB = 228, 227
	case "10.0":
		l.arch = "Blackwell"
		l.sharedPerSMKB, l.sharedPerBlockKB = 228, 227
	case "12.0":
		l.arch = "Blackwell"
		l.sharedPerSMKB, l.sharedPerBlockKB, l.maxThreadsPerSM = 100, 99, 1536
	default:
		return guideLimits{}, false
	}
	return l, true
}

// checkGuideLimits holds an NVIDIA GPU of a compute capability the guide's table covers to that
// table: these limits are the capability's, not the product's, so in a catalogue entry a
// differing value is a typo or the wrong capability, and so is another architecture than the
// capability's. Validate leaves it out: a hypothetical GPU (smart space --shared-kb) changes a
// real one's limits on purpose. The error is a *FieldError.
func checkGuideLimits(g smart.GPU) error {
	if g.Vendor != "NVIDIA" {
		return nil
	}
	l, ok := limitsOf(g.ComputeCapability)
	if !ok {
		return nil
	}
	for _, f := range guideFields(&g, l) {
		if got := *f.field; got != f.want {
			return &FieldError{GPU: g.Name, Field: f.name, Problem: fmt.Sprintf("is %d, but compute capability %s has %d (CUDA C++ Programming Guide, table 'Technical Specifications per Compute Capability'); correct the value or the compute_capability", got, g.ComputeCapability, f.want)}
		}
	}
	// The limits agreeing, the architecture must be the capability's: "Ampere", "ampere" and
	// "Ampere (GA100)" name Ampere, "Ada" Ada Lovelace.
	if !archIs(l.arch, g.Arch) && !archIs(g.Arch, l.arch) {
		return &FieldError{GPU: g.Name, Field: "arch", Problem: fmt.Sprintf("is %q, but compute capability %s is %s (CUDA C++ Programming Guide); correct the arch or the compute_capability", g.Arch, g.ComputeCapability, l.arch)}
	}
	return nil
}

// guideField is one of a GPU's fields that its compute capability fixes, with the value the
// Programming Guide's table gives it.
type guideField struct {
	name  string
	field *int
	want  int
}

func guideFields(g *smart.GPU, l guideLimits) []guideField {
	return []guideField{
		{"shared_per_sm_kb", &g.SharedPerSMKB, l.sharedPerSMKB},
		{"shared_per_block_kb", &g.SharedPerBlockKB, l.sharedPerBlockKB},
		{"regs_per_sm", &g.RegsPerSM, l.regsPerSM},
		{"regs_per_block", &g.RegsPerBlock, l.regsPerBlock},
		{"max_regs_per_thread", &g.MaxRegsPerThread, l.maxRegsPerThread},
		{"max_threads_per_sm", &g.MaxThreadsPerSM, l.maxThreadsPerSM},
		{"max_threads_per_block", &g.MaxThreadsPerBlk, l.maxThreadsPerBlock},
		{"max_blocks_per_sm", &g.MaxBlocksPerSM, l.maxBlocksPerSM},
		{"constant_memory_kb", &g.ConstantMemoryKB, l.constantMemoryKB},
		{"warp_size", &g.WarpSize, l.warpSize},
	}
}

// GuideSource is the source a limit filled in from the compute capability cites.
const GuideSource = "CUDA C++ Programming Guide, table 'Technical Specifications per Compute Capability' (filled in by smart from compute_capability)"

// fillGuideLimits gives an NVIDIA GPU the per-SM and per-block limits of its compute capability,
// and its architecture, where they are left out (0, or empty), each limit citing GuideSource:
// they are the capability's, not the product's, so describing a new GPU takes only what its
// datasheet says. A capability the table here lacks fills nothing.
func fillGuideLimits(g *smart.GPU) {
	if g.Vendor != "NVIDIA" {
		return
	}
	l, ok := limitsOf(g.ComputeCapability)
	if !ok {
		return
	}
	for _, f := range guideFields(g, l) {
		if *f.field == 0 {
			*f.field = f.want
			if g.Sources == nil {
				g.Sources = map[string]string{}
			}
			g.Sources[f.name] = GuideSource
		}
	}
	if strings.TrimSpace(g.Arch) == "" {
		g.Arch = l.arch
	}
}
