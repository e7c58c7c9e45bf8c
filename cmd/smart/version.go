package main

import (
	"context"

	"smart/app"
)

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
	v, err := app.CurrentVersion()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e, v)
	}
	return v.WriteText(e.stdout)
}
