// Package buildinfo says which build of smart is running: the module version, the commit it was
// built from and the Go toolchain, as the go command stamped them into the binary.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"time"
)

// Build is what the go command recorded about a binary. Go stamps no build time (builds are
// reproducible); CommitTime, the time of the commit built, stands for the build's date.
type Build struct {
	Module  string `json:"module"`
	Version string `json:"version"` // "(devel)" for a build that no version tag names
	// Commit, CommitTime and Modified are empty where the build was not stamped with version
	// control information: go run, go test, -buildvcs=false, a git worktree, a tree outside git.
	Commit     string    `json:"commit,omitempty"`
	CommitTime time.Time `json:"commit_time,omitzero"`
	Modified   bool      `json:"modified,omitempty"` // the tree had uncommitted changes
	GoVersion  string    `json:"go"`
	Platform   string    `json:"platform"` // GOOS/GOARCH
}

// Current reads the running binary's build information.
func Current() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok { // a binary built without module support
		return Build{Module: "smart", Version: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	}
	return From(bi)
}

// From reads a binary's build information.
func From(bi *debug.BuildInfo) Build {
	b := Build{Module: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion}
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			// RFC 3339, as the go command writes it; a value it did not write is left out.
			b.CommitTime, _ = time.Parse(time.RFC3339, s.Value)
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	if goos != "" && goarch != "" {
		b.Platform = goos + "/" + goarch
	}
	return b
}

// Tool names the build in one line, as data sets and manifests record the tool that wrote them:
// "smart VERSION [COMMIT] GOVERSION".
func (b Build) Tool() string {
	v := "smart " + b.Version
	if b.Commit != "" {
		v += " " + b.Commit
	}
	return v + " " + b.GoVersion
}
