package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/setup"
)

// gridConfig is tinyConfig swept over two schemes and two seeds.
const gridConfig = tinyConfig + "sweep:\n  position.kind: [rope, alibi]\n  seed: [1, 2]\n"

// TestGridSetErrorBlamesSet: a bad -set on a grid is blamed on the -set (it gives the value to
// every cell), not on the sweep cell first checked, whether the failing field is the one the
// -set gave or one the error names beside it; a -set of a swept field (which every cell would
// replace) is refused; a failing field the cell sweeps is still blamed on the cell. Through the
// loader, the CLI and a real process; each message golden (the file's directory elided).
func TestGridSetErrorBlamesSet(t *testing.T) {
	dir := t.TempDir()
	grid := writeFile(t, filepath.Join(dir, "grid.yaml"), gridConfig)
	heads := writeFile(t, filepath.Join(dir, "heads.yaml"), tinyConfig+"sweep:\n  model.heads: [2, 3]\n")
	plain := writeFile(t, filepath.Join(dir, "plain.yaml"), tinyConfig)
	heads3 := writeFile(t, filepath.Join(dir, "heads3.yaml"), strings.Replace(gridConfig, "heads: 2", "heads: 3", 1))
	selects := writeFile(t, filepath.Join(dir, "select.yaml"), gridConfig+"select:\n  field: train.lr\n  values: [0.001, 0.003]\n")
	sections := writeFile(t, filepath.Join(dir, "sections.yaml"), tinyConfig+"sweep:\n  position: [{kind: rope}, {kind: alibi}]\n")
	const cell = " (found in sweep cell position.kind-rope__seed-1; the -set applies to every cell: change or drop it)"
	for _, c := range []struct {
		file string
		sets []string
		want string
	}{
		{grid, []string{"model.heads=3"}, "-set model.heads=3: model.heads: 3 heads do not divide model.d_model 16; pick heads among the divisors of d_model" + cell},
		{grid, []string{"train.steps=5", "model.d_model=7"}, "-set model.d_model=7: model.heads: 2 heads do not divide model.d_model 7; pick heads among the divisors of d_model" + cell},
		{grid, []string{"train.lr=-1"}, "-set train.lr=-1: train.lr: must be a positive number, got -1" + cell},
		{grid, []string{"seed=5"}, "-set seed=5: seed is swept (sweep.seed in grid.yaml), so every cell replaces the -set's value and it would do nothing: drop the -set, or change the sweep"},
		{grid, []string{"position={kind: t5}"}, "-set position={kind: t5}: position.kind is swept (sweep.position.kind in grid.yaml), so every cell replaces this -set's position.kind (keeping its other keys): drop kind from the -set, or change the sweep"},
		{grid, []string{"position={kind: t5, max_distance: 64}"}, "-set position={kind: t5, max_distance: 64}: position.kind is swept (sweep.position.kind in grid.yaml), so every cell replaces this -set's position.kind (keeping its other keys): drop kind from the -set, or change the sweep"},
		{sections, []string{"position={kind: t5, max_distance: 64}"}, "-set position={kind: t5, max_distance: 64}: position.kind is swept (sweep.position in sections.yaml), so every cell replaces this -set's position.kind (keeping its other keys): drop kind from the -set, or change the sweep"},
		{plain, []string{"seed=5", "sweep={seed: [1, 2]}"}, "-set seed=5: seed is swept (sweep.seed in -set sweep={seed: [1, 2]}), so every cell replaces the -set's value and it would do nothing: drop the -set, or change the sweep"},
		{grid, []string{"model={d_model: 7}"}, "-set model={d_model: 7}: model.heads: 2 heads do not divide model.d_model 7; pick heads among the divisors of d_model" + cell},
		{heads3, []string{"model={layers: 2}"}, "heads3.yaml:3: sweep cell position.kind-rope__seed-1: model.heads: 3 heads do not divide model.d_model 16; pick heads among the divisors of d_model"},
		{selects, []string{"train.lr=0.5"}, "-set train.lr=0.5: train.lr is chosen by select: (select.field in select.yaml), so every cell replaces the -set's value with a candidate and it would do nothing: drop the -set, or change select:"},
		{selects, []string{"train={lr: 0.5, steps: 5}"}, "-set train={lr: 0.5, steps: 5}: train.lr is chosen by select: (select.field in select.yaml), so every cell replaces this -set's train.lr (keeping its other keys): drop lr from the -set, or change select:"},
		{heads, []string{"model.d_model=16"}, "heads.yaml:8: sweep cell model.heads-3: model.heads: 3 heads do not divide model.d_model 16; pick heads among the divisors of d_model"},
	} {
		var args []string
		for _, s := range c.sets {
			args = append(args, "-set", s)
		}
		golden := func(msg string) string { return strings.ReplaceAll(msg, dir+string(filepath.Separator), "") }
		cfg, cells, err := config.Read(nil, c.file, c.sets)
		if err == nil {
			_, err = setup.CheckGrid(cfg, cells)
		}
		if err == nil || golden(err.Error()) != c.want {
			t.Errorf("loader %v: %v\nwant %s", c.sets, err, c.want)
		}
		out := filepath.Join(dir, "runs")
		if err := runCaught(append([]string{"-config", c.file, "-out", out}, args...)...); err == nil || golden(err.Error()) != c.want {
			t.Errorf("CLI %v: %v\nwant %s", c.sets, err, c.want)
		}
		stdout, stderr, code := runChild(t, append([]string{"-config", c.file, "-out", out}, args...)...)
		if code != 1 || stdout != "" || golden(stderr) != "train: "+c.want+"\n" {
			t.Errorf("process %v: exit %d, stdout %q, stderr %q\nwant exit 1 and train: %s", c.sets, code, stdout, stderr, c.want)
		}
	}
	// A -set of a section whose keys no cell replaces is no -set of a swept field: each cell keeps it.
	for _, c := range []struct{ file, set string }{{grid, "position={base: 100}"}, {sections, "position={base: 100}"}} {
		_, cells, err := config.Read(nil, c.file, []string{c.set})
		if err != nil {
			t.Fatalf("loader %s on %s: %v", c.set, c.file, err)
		}
		for _, cell := range cells {
			if base, _ := cell.Config.Position.Option("base"); cell.Config.Position.Kind == "rope" && fmt.Sprint(base) != "100" {
				t.Errorf("-set %s: cell %s has position.base %v, want 100", c.set, cell.Name, base)
			}
		}
	}
	// A single run: the failing field is blamed on the -set if the -set wrote it or is a dotted
	// field the error names (as for a grid's cell), not on a -set of a key beside it in its section.
	one := writeFile(t, filepath.Join(dir, "one.yaml"), strings.Replace(tinyConfig, "heads: 2", "heads: 3", 1))
	for _, c := range []struct{ file, set, want string }{
		{one, "model={layers: 2}", "one.yaml:3: model.heads: 3 heads do not divide model.d_model 16; pick heads among the divisors of d_model"},
		{plain, "model.d_model=7", "-set model.d_model=7: model.heads: 2 heads do not divide model.d_model 7; pick heads among the divisors of d_model"},
	} {
		cfg, _, err := config.Read(nil, c.file, []string{c.set})
		if err == nil {
			_, err = setup.Check(cfg)
		}
		golden := func(msg string) string { return strings.ReplaceAll(msg, dir+string(filepath.Separator), "") }
		if golden(fmt.Sprint(err)) != c.want {
			t.Errorf("loader -set %s: %v\nwant %s", c.set, err, c.want)
		}
		args := []string{"-config", c.file, "-out", filepath.Join(dir, "runs"), "-set", c.set}
		if err := runCaught(args...); err == nil || golden(err.Error()) != c.want {
			t.Errorf("CLI -set %s: %v\nwant %s", c.set, err, c.want)
		}
		if stdout, stderr, code := runChild(t, args...); code != 1 || stdout != "" || golden(stderr) != "train: "+c.want+"\n" {
			t.Errorf("process -set %s: exit %d, stdout %q, stderr %q\nwant exit 1 and train: %s", c.set, code, stdout, stderr, c.want)
		}
	}
}
