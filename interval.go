package smart

// Interval is the range a predicted time per step lies in with probability Level, by the
// measured errors of the model that predicted it (From says which, and on what data).
type Interval struct {
	Level float64 `json:"level"`
	LoMs  float64 `json:"lo_ms"`
	HiMs  float64 `json:"hi_ms"`
	From  string  `json:"from"`
}

// Overlaps reports whether two intervals share any time: their predictions cannot be told apart
// at that level.
func (a Interval) Overlaps(b Interval) bool { return a.LoMs <= b.HiMs && b.LoMs <= a.HiMs }

// AtLeast is a raised to lie nowhere below ms (a floor no time can beat): the held-out errors
// an interval is made of know no physics.
func (a Interval) AtLeast(ms float64) Interval {
	a.LoMs, a.HiMs = max(a.LoMs, ms), max(a.HiMs, ms)
	return a
}
