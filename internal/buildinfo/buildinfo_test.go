package buildinfo

import (
	"runtime/debug"
	"testing"
	"time"
)

// TestFrom reads what the go command stamps: a build in a git checkout with uncommitted
// changes, and one without version control information (go run, -buildvcs=false).
func TestFrom(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings []debug.BuildSetting
		want     Build
		tool     string
	}{
		{"stamped", []debug.BuildSetting{
			{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"},
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "a5018d1765ccbc963b74d3c5d59150e9feada934"},
			{Key: "vcs.time", Value: "2026-11-25T21:10:52Z"}, {Key: "vcs.modified", Value: "true"},
		}, Build{Module: "smart", Version: "v0.0.0-20261125211052-a5018d1765cc+dirty", Commit: "a5018d1765ccbc963b74d3c5d59150e9feada934",
			CommitTime: time.Date(2026, 11, 25, 21, 10, 52, 0, time.UTC), Modified: true, GoVersion: "go1.26.8", Platform: "linux/amd64"},
			"smart v0.0.0-20261125211052-a5018d1765cc+dirty a5018d1765ccbc963b74d3c5d59150e9feada934 go1.26.8"},
		{"unstamped", []debug.BuildSetting{{Key: "GOOS", Value: "darwin"}, {Key: "GOARCH", Value: "arm64"}, {Key: "CGO_ENABLED", Value: "1"}},
			Build{Module: "smart", Version: "(devel)", GoVersion: "go1.26.8", Platform: "darwin/arm64"},
			"smart (devel) go1.26.8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "smart", Version: tc.want.Version}, Settings: tc.settings}
			got := From(bi)
			if got != tc.want {
				t.Errorf("From: %+v, want %+v", got, tc.want)
			}
			if got.Tool() != tc.tool {
				t.Errorf("Tool: %q, want %q", got.Tool(), tc.tool)
			}
		})
	}
}
