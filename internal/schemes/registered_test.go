package schemes_test

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/schemes"
)

// TestNoSchemesRegistered: a program that reads configs without linking package position (whose
// init fills the catalogue; this test binary does not link it) gets one line saying so and the
// import that fixes it, for a kind and for a scheme's option, not "unknown scheme (known: )".
func TestNoSchemesRegistered(t *testing.T) {
	if k := schemes.Kinds(); len(k) > 0 {
		t.Fatalf("this test binary links package position (kinds %v): the test needs a program without it", k)
	}
	const want = "no position schemes registered: import github.com/posformer/posformer/position"
	for src, lead := range map[string]string{
		"position: {kind: alibi}\n":           `x.yaml:1: position.kind: "alibi": `,
		"task: {name: copy}\n":                `x.yaml: position.kind: "`,
		"position: {kind: rope, base: 500}\n": `x.yaml:1: position.base: unknown key "base" in section position: `,
	} {
		_, _, err := config.Read([]byte(src), "x.yaml", nil)
		if err == nil || !strings.HasPrefix(err.Error(), lead) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line %s...%s", src, err, lead, want)
		}
	}
}
