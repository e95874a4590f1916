package config

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/data"
)

// TestTaskQueriesReachesTheTask (hostile F8): task.queries, which configs/README.md and
// docs/tasks.md document, is read and reaches the mqar task: the exact-match baseline at a length
// is one in v(v−1)···(v−Q+1), v the values, for the Q written (every key once, ⌊L/4⌋ queries,
// when it is not). The loader refused it as an unknown key.
func TestTaskQueriesReachesTheTask(t *testing.T) {
	dir := t.TempDir()
	const symbols, L = 20, 16
	v := float64(symbols / 2) // the values: symbols/2..symbols−1
	for _, q := range []int{0, 1, 2, 3, 4} {
		src := fmt.Sprintf("task: {name: mqar, symbols: %d, min_len: %d, max_len: %d", symbols, 4*max(q, 1), 4*max(q, 1))
		if q > 0 {
			src += fmt.Sprintf(", queries: %d", q)
		}
		path := filepath.Join(dir, fmt.Sprintf("q%d.yaml", q))
		if err := os.WriteFile(path, []byte(src+"}\neval: {lengths: [16]}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c, _, err := Read(nil, path, nil)
		if err != nil {
			t.Fatalf("queries %d: %v", q, err)
		}
		task, err := c.NewTask()
		if err != nil {
			t.Fatalf("queries %d: %v", q, err)
		}
		b, ok := data.BaselineOf(task, L)
		if !ok {
			t.Fatalf("queries %d: mqar has no baseline", q)
		}
		n := q
		if q == 0 {
			n = L / 4
		}
		want := 1.0
		for i := range n {
			want /= v - float64(i)
		}
		if b.Exact != want {
			t.Errorf("queries %d: exact-match baseline at length %d is %g, want %g (%d queries)", q, L, b.Exact, want, n)
		}
	}
}
