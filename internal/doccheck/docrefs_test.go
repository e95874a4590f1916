package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

// docPackages maps the package names the docs write (`report.ExtrapolatesTo`) to their folders.
var docPackages = map[string]string{
	"position": "position", "attention": "attention", "model": "model", "train": "train", "report": "report",
	"data": "data", "config": "config", "ops": "internal/ops", "stats": "internal/stats", "metric": "metric",
}

// TestDocsNameExistingCode: every exported identifier the docs (README.md, configs/README.md,
// docs/*.md, docs/claims/README.md) name as pkg.Name, or pkg.Type.Member, is declared in that
// package (tests included), so a rename or a move (train.Chance became report.Chance) cannot
// leave the docs pointing at nothing.
func TestDocsNameExistingCode(t *testing.T) {
	const root = "../.."
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "configs", "README.md"), filepath.Join(root, "docs", "claims", "README.md"))
	names := map[string]map[string]bool{} // package → its top-level names, methods and fields
	declared := func(pkg string) map[string]bool {
		if n, ok := names[pkg]; ok {
			return n
		}
		n := map[string]bool{}
		files, _ := filepath.Glob(filepath.Join(root, docPackages[pkg], "*.go"))
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(af, func(x ast.Node) bool {
				switch d := x.(type) {
				case *ast.FuncDecl:
					n[d.Name.Name] = true
				case *ast.TypeSpec:
					n[d.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range d.Names {
						n[id.Name] = true
					}
				case *ast.Field:
					for _, id := range d.Names {
						n[id.Name] = true
					}
				}
				return true
			})
		}
		names[pkg] = n
		return n
	}
	ref := regexp.MustCompile(`\b(position|attention|model|train|report|data|config|ops|stats)((?:\.[A-Z]\w*)+)`)
	ident := regexp.MustCompile(`[A-Z]\w*`)
	checked := 0
	for _, doc := range docs {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		for _, m := range ref.FindAllStringSubmatch(string(src), -1) {
			n := declared(m[1])
			for _, id := range ident.FindAllString(m[2], -1) {
				checked++
				if !n[id] {
					missing = append(missing, m[0]+" ("+docPackages[m[1]]+" declares no "+id+")")
					break
				}
			}
		}
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("%s names %s", doc, m)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d references checked: the pattern no longer matches the docs", checked)
	}
}
