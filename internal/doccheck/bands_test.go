package doccheck

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeBands: README.md's Layout table puts every package of the module outside internal/
// and configs/ in exactly one band (a bold name in its first column: the library, the pipeline,
// the outputs, the CLI), and a package depends (`go list -deps`, so directly or through others)
// only on packages of its own band, of the bands listed before it, and on internal/ and configs/,
// but for the imports the section names as exceptions ("`train` imports `export`").
func TestReadmeBands(t *testing.T) {
	section := layoutSection(t)
	row := regexp.MustCompile("(?m)^\\|([^|]*)\\|([^|]*)\\|")
	pkg := regexp.MustCompile("`([a-z/]+)/`")
	band := map[string]int{} // package → its band's index
	var names []string       // the bands, in order
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		first := strings.TrimSpace(m[1])
		if first == "band" || strings.HasPrefix(first, "---") {
			continue
		}
		if first != "" {
			if !strings.HasPrefix(first, "**") {
				names = append(names, "") // a group outside the bands (internal helpers, beside the code)
			} else {
				names = append(names, strings.Trim(first, "*"))
			}
		}
		if len(names) == 0 || names[len(names)-1] == "" {
			continue
		}
		for _, p := range pkg.FindAllStringSubmatch(m[2], -1) {
			if b, ok := band[p[1]]; ok {
				t.Errorf("README.md's Layout puts %s in two bands, %s and %s", p[1], names[b], names[len(names)-1])
			}
			band[p[1]] = len(names) - 1
		}
	}
	if len(band) < 10 {
		t.Fatalf("README.md's Layout table gives only %d packages a band: %v", len(band), band)
	}
	allowed := map[[2]string]bool{}
	for _, m := range regexp.MustCompile("`([a-z/]+)`\\s+imports\\s+`([a-z/]+)`").FindAllStringSubmatch(section, -1) {
		allowed[[2]string{m[1], m[2]}] = true
	}

	const module = "github.com/posformer/posformer/"
	list := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...")
	list.Dir = "../.."
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	outside := func(p string) bool { return strings.HasPrefix(p, "internal/") || p == "configs" }
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p := strings.TrimPrefix(f[0], module)
		if outside(p) {
			continue
		}
		b, ok := band[p]
		if !ok {
			t.Errorf("README.md's Layout table gives %s no band: add it to the library, the pipeline, the outputs or the CLI", p)
			continue
		}
		seen++
		for _, d := range f[1:] {
			q, ok := strings.CutPrefix(d, module)
			if !ok || outside(q) {
				continue
			}
			if bq, ok := band[q]; ok && bq > b && !excepted(out, allowed, p, q) {
				t.Errorf("%s (%s) depends on %s (%s), a band listed after it: move one of them, or name the exception in README.md's Layout (\"`%s` imports `%s`\")", p, names[b], q, names[bq], p, q)
			}
		}
	}
	if seen != len(band) {
		t.Errorf("README.md's Layout names %d packages in bands, go list has %d of them", len(band), seen)
	}
}

// excepted reports whether p reaches q through one of the README's exceptions "`a` imports `b`":
// p is a or depends on a, and b is q or depends on q.
func excepted(list []byte, allowed map[[2]string]bool, p, q string) bool {
	for k := range allowed {
		if dependsOn(list, p, k[0]) && dependsOn(list, k[1], q) {
			return true
		}
	}
	return false
}

// dependsOn reports whether `go list -f '{{.ImportPath}} {{.Deps}}'`'s output has p depending on q
// (or p being q): what p reaches through an allowed import is allowed too.
func dependsOn(list []byte, p, q string) bool {
	const module = "github.com/posformer/posformer/"
	if p == q {
		return true
	}
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == module+p {
			return slices.Contains(f[1:], module+q)
		}
	}
	return false
}

// layoutSection is README.md's "## Layout" section.
func layoutSection(t *testing.T) string {
	t.Helper()
	s := string(readFile(t, "../../README.md"))
	i := strings.Index(s, "## Layout")
	if i < 0 {
		t.Fatal("README.md has no ## Layout section")
	}
	s = s[i:]
	if j := strings.Index(s[1:], "\n## "); j > 0 {
		s = s[:j+1]
	}
	return s
}
