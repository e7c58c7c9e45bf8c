package cuda

import (
	"bufio"
	"fmt"
	"io"

	"smart"
	"smart/internal/english"
)

// KernelJSON is the JSON form of a generated kernel: its launch configuration, and its source
// or the file that holds it.
type KernelJSON struct {
	Namespace     string            `json:"namespace"`
	StencilID     string            `json:"stencil_id"`
	OC            smart.Combination `json:"oc"`
	Setting       smart.Setting     `json:"setting"`
	Dtype         smart.Dtype       `json:"dtype"`
	Steps         int               `json:"steps"`
	Launches      []Launch          `json:"launches"`
	ConstantBytes int               `json:"constant_bytes"`
	File          string            `json:"file,omitempty"`   // where the source was written
	Source        string            `json:"source,omitempty"` // the source, when not written to a file
}

// JSON returns the kernel's JSON form: file names the file its source (File) was written to,
// or is empty for the form to hold the source itself.
func (k *Kernel) JSON(file string) KernelJSON {
	out := KernelJSON{Namespace: k.Name, StencilID: k.StencilID, OC: k.OC, Setting: k.Setting, Dtype: k.Dtype,
		Steps: k.Steps, Launches: k.Launches, ConstantBytes: k.ConstantBytes, File: file}
	if file == "" {
		out.Source = k.File()
	}
	return out
}

// WriteSummary says that the kernel's source was written to file, and describes its launches.
func (k *Kernel) WriteSummary(w io.Writer, file string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "wrote %s: namespace %s, %s\n", file, k.Name, english.Plural(k.Steps, "time step"))
	for _, l := range k.Launches {
		fmt.Fprintf(bw, "  %s: grid %dx%dx%d, block %dx%dx%d, %d B dynamic shared memory, %s per launch, %s\n",
			l.Kernel, l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2], l.SharedBytes, english.Plural(l.Steps, "step"), english.Plural(l.Count, "launch"))
	}
	return bw.Flush()
}
