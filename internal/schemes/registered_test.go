package schemes_test

import (
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/schemes"
)

// TestConfigLinksTheSchemes: a program that reads configs (this test binary links config, not
// position by name) has every scheme in the catalogue, so position.kind: alibi reads.
func TestConfigLinksTheSchemes(t *testing.T) {
	if k := schemes.Kinds(); len(k) == 0 {
		t.Fatal("a program that links config has no position schemes registered")
	}
	if _, _, err := config.Read([]byte("position: {kind: alibi}\n"), "x.yaml", nil); err != nil {
		t.Errorf("position.kind: alibi: %v", err)
	}
}
