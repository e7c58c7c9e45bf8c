package dataset

import (
	"fmt"
	"strings"

	"smart"
)

// NoOCError is a setting written without its OC where no single OC stands for it.
type NoOCError struct{ Text string }

func (e *NoOCError) Error() string { return e.Text + " names no OC: write OC:k=v,..." }

// ParseVariants reads variants written OC:k=v,... or, where ocs holds a single OC, k=v,...
func ParseVariants(texts []string, ocs []smart.Combination) ([]Variant, error) {
	var out []Variant
	for _, text := range texts {
		var oc smart.Combination
		name, rest, named := strings.Cut(text, ":")
		switch {
		case named:
			var err error
			if oc, err = smart.ParseCombination(name); err != nil {
				return nil, fmt.Errorf("%s: %w", text, err)
			}
			text = rest
		case len(ocs) == 1:
			oc = ocs[0]
		default:
			return nil, &NoOCError{Text: text}
		}
		set, err := smart.ParseSetting(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", text, err)
		}
		out = append(out, Variant{OC: oc, Setting: set})
	}
	return out, nil
}
