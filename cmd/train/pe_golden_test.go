package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/position"
)

// TestPEGolden: `train pe` prints every registered scheme's table (8 positions, d_model 8, 2
// heads, its default options, seed 1) exactly as testdata/pe/<kind>.csv holds it, in full float64
// precision (go test ./cmd/train -run TestPEGolden -update writes them; a new scheme adds its
// file that way). A scheme without a table must say so.
func TestPEGolden(t *testing.T) {
	for _, kind := range position.Kinds() {
		t.Run(kind, func(t *testing.T) {
			var out bytes.Buffer
			err := runPE(t.Context(), []string{"-scheme", kind, "-positions", "8", "-dim", "8", "-heads", "2"}, &out, io.Discard)
			golden := filepath.Join("testdata", "pe", kind+".csv")
			if err != nil {
				if _, serr := os.Stat(golden); serr == nil {
					t.Fatalf("pe: %v, but %s exists", err, golden)
				}
				t.Logf("no table: %v", err)
				return
			}
			if *updateInspect {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/train -run TestPEGolden -update writes it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("pe -scheme %s differs from %s:\n%s", kind, golden, out.String())
			}
		})
	}
}
