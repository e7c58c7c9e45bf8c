package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// kttFile is the JSON that KTT (the Kernel Tuning Toolkit) writes of a tuning run with its own
// output format (OutputFormat::JSON): the device and time unit, and every configuration run
// with its status and duration.
type kttFile struct {
	Metadata struct {
		Device   string `json:"Device"`
		TimeUnit string `json:"TimeUnit"`
	} `json:"Metadata"`
	Results []struct {
		KernelName    string  `json:"KernelName"`
		Status        string  `json:"Status"`
		TotalDuration float64 `json:"TotalDuration"`
		Configuration []struct {
			Name      string          `json:"Name"`
			Value     json.RawMessage `json:"Value"`
			ValueType string          `json:"ValueType"` // KTT 2.1 and later
			IsDouble  bool            `json:"IsDouble"`  // before
		} `json:"Configuration"`
	} `json:"Results"`
}

// kttInvalidity is the T4 invalidity of each KTT status: a configuration beyond the device's
// limits is one the device cannot run (T4's constraints: invalid).
var kttInvalidity = map[string]string{
	"Ok":                   "correct",
	"ComputationFailed":    "runtime",
	"ValidationFailed":     "correctness",
	"CompilationFailed":    "compile",
	"DeviceLimitsExceeded": "constraints",
}

// decodeKTT reads data as KTT's own JSON, as the T4 file it would have written of the same run
// (ok false where data is no such file: its results' configurations are no lists).
func decodeKTT(data []byte) (*ktFile, bool, error) {
	var probe struct {
		Results []struct {
			Configuration json.RawMessage `json:"Configuration"`
		} `json:"Results"`
	}
	if json.Unmarshal(data, &probe) != nil || len(probe.Results) == 0 || !bytes.HasPrefix(bytes.TrimSpace(probe.Results[0].Configuration), []byte("[")) {
		return nil, false, nil
	}
	var k kttFile
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, true, err
	}
	t := &ktFile{ktt: true, Metadata: t4Metadata{Device: k.Metadata.Device, TimeUnit: k.Metadata.TimeUnit}}
	var kernels []string
	for i, r := range k.Results {
		field := func(name string) string { return fmt.Sprintf("Results[%d].%s", i, name) }
		if !slices.Contains(kernels, r.KernelName) {
			kernels = append(kernels, r.KernelName)
		}
		inv, ok := kttInvalidity[r.Status]
		if !ok {
			return nil, true, fmt.Errorf("field %s is %q; KTT uses Ok, ComputationFailed, ValidationFailed, CompilationFailed or DeviceLimitsExceeded", field("Status"), r.Status)
		}
		res := t4Result{Configuration: map[string]json.RawMessage{}, Invalidity: inv}
		for j, p := range r.Configuration {
			v := p.Value
			switch {
			case p.Name == "":
				return nil, true, fmt.Errorf("field %s has no Name", field(fmt.Sprintf("Configuration[%d]", j)))
			case p.ValueType == "Bool" && (string(v) == "1" || string(v) == "0"):
				v = json.RawMessage(map[string]string{"1": "true", "0": "false"}[string(v)])
			}
			res.Configuration[p.Name] = v
		}
		if inv == "correct" {
			d, err := json.Marshal(r.TotalDuration)
			if err != nil {
				return nil, true, fmt.Errorf("field %s: %w", field("TotalDuration"), err)
			}
			res.Measurements = append(res.Measurements, struct {
				Name  string          `json:"name"`
				Value json.RawMessage `json:"value"`
				Unit  string          `json:"unit"`
			}{Name: "time", Value: d})
		}
		t.Results = append(t.Results, res)
	}
	if len(kernels) > 1 {
		return nil, true, fmt.Errorf("the results are of kernels %s; smart reads a file of one kernel", strings.Join(kernels, ", "))
	}
	t.KernelName = kernels[0]
	return t, true, nil
}
