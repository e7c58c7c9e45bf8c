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
