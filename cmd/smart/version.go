package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"smart/internal/buildinfo"
	"smart/predict"
)

// versionOutput is what smart version --json prints.
type versionOutput struct {
	Build  buildinfo.Build         `json:"build"`
	Models []predict.EmbeddedModel `json:"models"`
}

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "version", "[--json]", `
Print which build of smart this is: its module version, the commit it was built from (and
whether the tree had uncommitted changes), that commit's date, the Go version and platform; and
the models embedded in it, each with its creation date, the SHA-256 of its file, and the data it
was trained on. Go stamps the commit into binaries built with go build or go install inside a git
clone; go run, -buildvcs=false and a git worktree leave it out. smart --version prints the same.

Example:
  smart version --json | jq '.build.commit, [.models[].sha256]'`)
	asJSON := fs.Bool("json", false, "print the build and the models as one JSON object")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("version takes no arguments, got %q", rest[0])
	}
	ms, err := predict.Embedded()
	if err != nil {
		return err
	}
	out := versionOutput{Build: buildinfo.Current(), Models: ms}
	if *asJSON {
		return writeJSON(e, out)
	}
	printVersion(e.stdout, out)
	return nil
}

func printVersion(w io.Writer, v versionOutput) {
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
		gpus := "every NVIDIA GPU"
		if m.GPU != "" {
			gpus = "the " + m.GPU + " only"
		}
		fmt.Fprintf(w, "  %s: %s %s of %d-D stencils, for %s; %s data; created %s, sha256 %s\n", m.Name, m.Kind, m.Task, m.Dims, gpus,
			m.Source, m.Created.UTC().Format("2006-01-02"), m.SHA256[:12])
		if r := m.Trained; r != nil {
			dtypes := make([]string, len(r.Dtypes))
			for i, d := range r.Dtypes {
				dtypes[i] = string(d)
			}
			fmt.Fprintf(w, "    stencils: %d, orders %d-%d, %s, %d settings per OC, on %s\n", r.Stencils, r.Orders[0], r.Orders[1],
				strings.Join(dtypes, " and "), r.Samples, strings.Join(r.GPUs, ", "))
		}
		fmt.Fprintf(w, "    %s\n", m.ModelInfo.Summary())
	}
}
