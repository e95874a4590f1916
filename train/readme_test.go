package train

import (
	"os"
	"strings"
	"testing"

	"github.com/posformer/posformer/position"
)

// TestReadmeSchemes: configs/README.md's reference of the schemes and their options is the one
// the registry generates (position.OptionsMarkdown), so a new scheme's options are documented by
// registering it (-update rewrites the section).
func TestReadmeSchemes(t *testing.T) {
	const path = "../configs/README.md"
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
		t.Errorf("%s's scheme reference is not the registry's; go test ./train -run TestReadmeSchemes -update rewrites it.\ngot:\n%s\nwant:\n%s", path, got, want)
	}
	for _, kind := range position.Kinds() {
		if !strings.Contains(s, "| `"+kind+"` |") {
			t.Errorf("%s does not list %s", path, kind)
		}
	}
}
