package app

import (
	"fmt"
	"io"
	"strings"

	"smart/internal/buildinfo"
	"smart/predict"
)

// Version is the build of smart that runs and the models embedded in it.
type Version struct {
	Build  buildinfo.Build         `json:"build"`
	Models []predict.EmbeddedModel `json:"models"`
}

// CurrentVersion is the build that runs, with its embedded models.
func CurrentVersion() (*Version, error) {
	ms, err := predict.Embedded()
	if err != nil {
		return nil, err
	}
	return &Version{Build: buildinfo.Current(), Models: ms}, nil
}

// WriteText writes the build and each model with the data it was trained on.
func (v *Version) WriteText(w io.Writer) error {
	b := v.Build
	commit := "commit unknown (not stamped: built by go run, with -buildvcs=false, in a git worktree or outside git)"
	if b.Commit != "" {
		commit = "commit " + b.Commit
		if b.Modified {
			commit += " with uncommitted changes"
		}
		if !b.CommitTime.IsZero() {
			commit += ", committed " + b.CommitTime.UTC().Format("2006-01-02 15:04 UTC")
		}
	}
	fmt.Fprintf(w, "smart %s (module %s)\n%s\nbuilt with %s for %s\n", b.Version, b.Module, commit, b.GoVersion, b.Platform)
	fmt.Fprintln(w, "\nEmbedded models")
	for _, m := range v.Models {
		gpus := "for every NVIDIA GPU"
		if m.GPU != "" {
			// predict scales the runtime model's times to every other GPU, and the local-memory
			// model guards the search on each.
			gpus = "learned on the " + m.GPU + ", used for every NVIDIA GPU"
		}
		fmt.Fprintf(w, "  %s: %s %s of %d-D stencils, %s; %s data; created %s, sha256 %s\n", m.Name, m.Kind, m.Task, m.Dims, gpus,
			m.Source, m.Created.UTC().Format("2006-01-02"), m.SHA256[:12])
		if r := m.Trained; r != nil {
			dtypes := make([]string, len(r.Dtypes))
			for i, d := range r.Dtypes {
				dtypes[i] = string(d)
			}
			fmt.Fprintf(w, "    stencils: %d, orders %d-%d, %s, %d settings per OC, on %s\n", r.Stencils, r.Orders[0], r.Orders[1],
				strings.Join(dtypes, " and "), r.Samples, strings.Join(r.GPUs, ", "))
		}
		if _, err := fmt.Fprintf(w, "    %s\n", m.ModelInfo.Summary()); err != nil {
			return err
		}
	}
	return nil
}
