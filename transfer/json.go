package transfer

import (
	"encoding/json"

	"smart"
	"smart/dataset"
)

// MarshalJSON writes the prediction with each variant's values as the files hold them beside
// its setting (see Variants.MarshalJSON).
func (p Prediction) MarshalJSON() ([]byte, error) {
	type plain Prediction
	out := struct {
		plain
		LeftOut  *Variants `json:"left_out_shots,omitempty"`
		Variants Variants  `json:"variants"`
	}{plain: plain(p), Variants: Variants{p.Variants, p.Params}}
	if len(p.LeftOut) > 0 {
		out.LeftOut = &Variants{p.LeftOut, p.Params}
	}
	return json.Marshal(out)
}

// Variants are variants with the parameters that say what their settings' codes stand for:
// smart holds a foreign kernel's float and string values as codes (space.LabelCode) and its
// booleans as 1 and 0.
type Variants struct {
	List   []Variant
	Params []dataset.Param // the kernel's, where some of its values are coded; none otherwise
}

// MarshalJSON writes the list as an array of variants, each, where some parameters are
// coded, with "values": its setting's values as Kernel Tuner holds them (dataset.Param.JSON;
// what best_values is to smart tune --json), and no OC for a foreign kernel's variant, which
// has none.
func (vs Variants) MarshalJSON() ([]byte, error) {
	if vs.List == nil {
		return []byte("null"), nil
	}
	type plain Variant
	type variant struct {
		plain
		OC     *smart.Combination `json:"oc,omitempty"`
		Values map[string]any     `json:"values,omitempty"`
	}
	out := make([]variant, len(vs.List))
	for i, v := range vs.List {
		out[i] = variant{plain: plain(v)}
		if v.StencilID != "" || v.Kernel == "" {
			out[i].OC = &vs.List[i].OC
		}
		out[i].Values = dataset.SettingValues(v.Setting, vs.Params)
	}
	return json.Marshal(out)
}
