package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// aliasDoc is a document of w items, the first anchoring a list of m scalars and the others
// aliases of it: 1 + w·(1+m) nodes once its aliases are expanded.
func aliasDoc(w, m int) string {
	items := []string{"&a [" + strings.TrimSuffix(strings.Repeat("x, ", m), ", ") + "]"}
	for range w - 1 {
		items = append(items, "*a")
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// TestParseYAMLNodeLimit: a document of exactly maxYAMLNodes expanded nodes parses and one node
// more is refused, whatever the shape.
func TestParseYAMLNodeLimit(t *testing.T) {
	for _, c := range []struct{ w, m, nodes int }{{369, 270, 100_000}, {100, 999, 100_001}, {3, 33332, 100_000}, {33333, 2, 100_000}, {2, 49999, 100_001}} {
		if got := 1 + c.w*(1+c.m); got != c.nodes {
			t.Fatalf("bad case %+v: %d nodes", c, got)
		}
		root, err := ParseYAML([]byte("k: "+aliasDoc(c.w, c.m)), "f.yaml")
		// The root mapping and its key add two nodes.
		if ok := c.nodes+2 <= maxYAMLNodes; ok != (err == nil) || ok && root == nil {
			t.Errorf("%d nodes (%d wide, lists of %d): %v", c.nodes+2, c.w, c.m, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "f.yaml:1: ") || !strings.Contains(err.Error(), "holds more than 100000 values") {
			t.Errorf("the refusal does not name the file, line and key: %v", err)
		}
	}
}

// TestParseYAMLDepthLimit: nesting maxYAMLDepth deep parses, one deeper is refused, whether
// the levels are written out or come from aliases.
func TestParseYAMLDepthLimit(t *testing.T) {
	for depth := maxYAMLDepth - 2; depth <= maxYAMLDepth+2; depth++ {
		written := strings.Repeat("[", depth-1) + "1" + strings.Repeat("]", depth-1)
		aliased := "[&d1 [1]" // the list of anchors adds a level
		for i := 2; i < depth-1; i++ {
			aliased += fmt.Sprintf(", &d%d [*d%d]", i, i-1)
		}
		aliased += "]"
		for _, doc := range []string{written, aliased} {
			_, err := ParseYAML([]byte(doc), "f.yaml")
			if ok := depth <= maxYAMLDepth; ok != (err == nil) {
				t.Errorf("depth %d (%.20s...): %v", depth, doc, err)
			}
			if err != nil && !strings.Contains(err.Error(), "nests more than 64 levels deep") {
				t.Errorf("depth %d: %v", depth, err)
			}
		}
	}
}

// TestSetRefusesBomb: a -set value holding an alias bomb is refused by the same limits.
func TestSetRefusesBomb(t *testing.T) {
	var c Config
	err := Set(&c, "eval.lengths="+aliasDoc(1000, 1000))
	if err == nil || !strings.Contains(err.Error(), "holds more than 100000 values") || !strings.HasPrefix(err.Error(), "-set eval.lengths=") {
		t.Errorf("got %v", err)
	}
}

// TestReadConfigSpecialFiles: the loader refuses a FIFO with no writer (whose plain open blocks
// forever), a directory and a device at once, naming the path and what it is.
func TestReadConfigSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{fifo: "a named pipe (FIFO)", dir: "a directory", "/dev/zero": "a character device"} {
		_, _, err := Read(nil, path, nil)
		if err == nil || !strings.Contains(err.Error(), path+" is "+what+", not a regular file") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", path, err)
		}
	}
}
