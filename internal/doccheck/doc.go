// Package doccheck holds the repository-wide checks (tests only): that the documents
// (README.md, configs/README.md, docs/*.md) and the deploy/ files say what the code does. The
// README's layout table and dependency picture against `go list`, the scheme reference against
// the registry, every pkg.Name the docs write against the declarations, the deploy files' shard
// counts against the grid they split.
package doccheck
