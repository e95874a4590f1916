package export

import (
	"encoding/json"
	"testing"

	"github.com/nlpodyssey/safetensors"
	"github.com/posformer/posformer/data"
)

// TestExportDigit0: the export of a scheme that reads its positions from the tokens' digits
// (abacus, coupled) names the token of digit 0 (posformer.model.digit0), which the PyTorch loader
// needs to find the numbers; every other scheme's export has no such key (its bytes unchanged),
// on the same task.
func TestExportDigit0(t *testing.T) {
	for _, kind := range []string{"abacus", "coupled", "rope"} {
		m, cfg, task := minimalModel(t, "task.name=addition", "position.kind="+kind)
		b, err := Safetensors(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, md, err := safetensors.ReadMetadata(b)
		if err != nil {
			t.Fatal(err)
		}
		var arch map[string]any
		if err := json.Unmarshal([]byte(md.Metadata()[MetaModel]), &arch); err != nil {
			t.Fatal(err)
		}
		got, has := arch["digit0"]
		d0, _ := data.Digit0(task)
		switch {
		case kind == "rope" && has:
			t.Errorf("rope: posformer.model has digit0 %v; only the schemes that read digits carry it", got)
		case kind != "rope" && got != float64(d0):
			t.Errorf("%s: posformer.model.digit0 %v, want %d", kind, got, d0)
		}
	}
}
