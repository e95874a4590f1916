// Package configs embeds posformer's experiment configs (the YAML files in this directory), so
// the CLI can run the default experiment with no file at hand and tests can check every config.
package configs

import "embed"

// FS holds every *.yaml file of this directory.
//
//go:embed *.yaml
var FS embed.FS

// Default is the file `go run ./cmd/train` runs when no -config is given.
const Default = "default.yaml"
