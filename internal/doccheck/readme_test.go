package doccheck

import (
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/position"
)

var update = flag.Bool("update", false, "rewrite configs/README.md's scheme reference from the registry")

// TestReadmeSchemes: configs/README.md's reference of the schemes and their options is the one
// the registry generates (position.OptionsMarkdown), so a new scheme's options are documented by
// registering it (-update rewrites the section).
func TestReadmeSchemes(t *testing.T) {
	const path = "../../configs/README.md"
	const begin, end = "<!-- schemes: begin -->\n", "<!-- schemes: end -->"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", path, begin, end)
	}
	want := position.OptionsMarkdown()
	if got := s[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's scheme reference is not the registry's; go test ./internal/doccheck -run TestReadmeSchemes -update rewrites it.\ngot:\n%s\nwant:\n%s", path, got, want)
	}
	for _, kind := range position.Kinds() {
		if !strings.Contains(s, "| `"+kind+"` |") {
			t.Errorf("%s does not list %s", path, kind)
		}
	}
}

// TestReadmeDependencies: the README's dependency picture (chains `position` ← `attention` ← ...,
// where each package imports the one before it) is what `go list` says: every package is in the
// picture or at the bottom (internal/*, data, rundir, configs: importing only the bottom), and
// imports nothing of the module but packages the picture puts below it (before it in a chain,
// directly or through other chains) and the bottom ones, so config never imports train,
// nor model report.
func TestReadmeDependencies(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	para := string(src)
	i := strings.Index(para, "Dependencies point one way")
	if i < 0 {
		t.Fatal("README.md has no \"Dependencies point one way\" paragraph")
	}
	para = para[i:]
	if j := strings.Index(para, "\n\n"); j > 0 {
		para = para[:j]
	}
	const module = "github.com/posformer/posformer/"
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		imports[pkg] = nil
		for _, imp := range f[1:] {
			if p, ok := strings.CutPrefix(imp, module); ok {
				imports[pkg] = append(imports[pkg], p)
			}
		}
	}
	// below[p][q]: the picture puts q below p.
	below := map[string]map[string]bool{}
	var pictured []string
	for _, m := range regexp.MustCompile("`([a-z/]+)`((?:\\s*←\\s*`[a-z/]+`)+)").FindAllStringSubmatch(para, -1) {
		chain := []string{m[1]}
		for _, n := range regexp.MustCompile("`([a-z/]+)`").FindAllStringSubmatch(m[2], -1) {
			chain = append(chain, n[1])
		}
		for i, p := range chain {
			if _, ok := imports[p]; !ok {
				t.Errorf("README.md's picture names %s, which go list does not list", p)
			}
			if below[p] == nil {
				below[p] = map[string]bool{}
				pictured = append(pictured, p)
			}
			if i > 0 {
				if !slices.Contains(imports[p], chain[i-1]) {
					t.Errorf("README.md: %s ← %s, but %s does not import %s", chain[i-1], p, p, chain[i-1])
				}
				below[p][chain[i-1]] = true
			}
		}
	}
	if len(pictured) < 5 {
		t.Fatalf("no dependency chain in README.md's paragraph:\n%s", para)
	}
	for changed := true; changed; { // through other chains
		changed = false
		for _, p := range pictured {
			for q := range below[p] {
				for r := range below[q] {
					if !below[p][r] {
						below[p][r], changed = true, true
					}
				}
			}
		}
	}
	// The bottom: configs, and the packages the paragraph names before "at the bottom"
	// (`internal/*` names every internal package).
	bottoms := []string{"configs"}
	if k := strings.Index(para, "at the bottom"); k > 0 {
		for _, m := range regexp.MustCompile("`([a-z/*]+)`").FindAllStringSubmatch(para[:k], -1) {
			bottoms = append(bottoms, m[1])
		}
	}
	bottom := func(p string) bool {
		for _, b := range bottoms {
			if pre, ok := strings.CutSuffix(b, "*"); ok && strings.HasPrefix(p, pre) || p == b {
				return true
			}
		}
		return false
	}
	for _, p := range pictured {
		if below[p][p] {
			t.Errorf("README.md's picture puts %s below itself", p)
		}
		for _, imp := range imports[p] {
			if !below[p][imp] && !bottom(imp) {
				t.Errorf("%s imports %s, against README.md's picture", p, imp)
			}
		}
	}
	for pkg, imps := range imports {
		switch {
		case below[pkg] == nil && !bottom(pkg):
			t.Errorf("README.md's dependency picture leaves out %s", pkg)
		case below[pkg] == nil:
			for _, imp := range imps {
				if !bottom(imp) {
					t.Errorf("%s, at the bottom, imports %s", pkg, imp)
				}
			}
		}
	}
}

// TestReadmeLayout: every folder of the module that holds Go code is named in README.md's
// Layout table (`dir/`, or a folder above it), so a new package is described where the others
// are.
func TestReadmeLayout(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := string(src)
	i := strings.Index(table, "## Layout")
	if i < 0 {
		t.Fatal("README.md has no ## Layout section")
	}
	table = table[i:]
	if j := strings.Index(table[1:], "\n## "); j > 0 {
		table = table[:j+1]
	}
	const root = "../.."
	dirs := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "python") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			dirs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("only %d folders with Go code found: %v", len(dirs), dirs)
	}
	for dir := range dirs {
		named := false
		for d := dir; d != "." && !named; d = filepath.ToSlash(filepath.Dir(d)) {
			named = strings.Contains(table, "`"+d+"/`")
		}
		if !named {
			t.Errorf("README.md's Layout table does not name %s/ (nor a folder above it)", dir)
		}
	}
}

// TestReadmeLength: README.md stays a newcomer's page, at most 1,800 words outside code spans
// (`sed 's/`[^`]*`//g' README.md | wc -w`); what a run writes and the other references live in
// docs/ and configs/README.md.
func TestReadmeLength(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	words := len(strings.Fields(regexp.MustCompile("`[^`\n]*`").ReplaceAllString(string(src), "")))
	if words > 1800 {
		t.Errorf("README.md has %d words outside code spans, more than 1,800: move the detail to docs/ and link it", words)
	}
}
