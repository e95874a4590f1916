package yamlkind

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestOf(t *testing.T) {
	for src, want := range map[string]string{"{a: 1}": "a mapping", "[1, 2]": "a list", "~": "nothing", "x: ": "a mapping", "7": `"7"`, "abc": `"abc"`} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		if got := Of(doc.Content[0]); got != want {
			t.Errorf("Of(%q) = %s, want %s", src, got, want)
		}
	}
	if got := Of(&yaml.Node{Kind: yaml.AliasNode}); got != "an alias" {
		t.Errorf("alias: %s", got)
	}
}
