package claims

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/posformer/posformer/rundir"
)

// CheckExports refuses, before anything is written, a table that `claims -export` would write
// over what the user wrote or what the same command reads or writes: its csv: naming an input
// (a claims file, a table's grid config, a paper's numbers, a table read and not exported), an
// output (a generated document, the index files in outputs, another exported table's csv) or a
// file under runs (which claims only reads).
func CheckExports(files []*File, runs string, outputs []string) error {
	taken := map[string]string{} // resolved path -> what it is
	add := func(p, what string) error {
		if p == "" {
			return nil
		}
		r, err := rundir.Resolve(p)
		if err != nil {
			return err
		}
		if _, ok := taken[r]; !ok {
			taken[r] = what
		}
		return nil
	}
	for _, f := range files {
		add(f.Path, "the claims file "+f.Path)
		add(docName(f), "the document "+docName(f)+" this command writes")
		add(f.Paper.Numbers, "the paper's numbers of "+f.Path)
		for _, t := range f.Tables {
			add(t.Grid, "the grid config of table "+t.Name)
			if t.Grid == "" && t.CSV != "" {
				add(t.CSV, fmt.Sprintf("the csv table %s of %s reads", t.Name, f.Path))
			}
		}
	}
	for _, o := range outputs {
		add(o, "the file "+o+" this command writes")
	}
	rr, err := rundir.Resolve(runs)
	if err != nil {
		return err
	}
	exported := map[string]string{} // resolved csv -> the table writing it
	for _, f := range files {
		for i, t := range f.Tables {
			if t.Grid == "" || t.CSV == "" {
				continue
			}
			r, err := rundir.Resolve(t.CSV)
			if err != nil {
				return err
			}
			fix := fmt.Sprintf("give the table a csv: of its own, e.g. %s.csv", t.Name)
			where := fmt.Sprintf("tables[%d].csv", i)
			if what, ok := taken[r]; ok {
				return f.errAt(where, "%s is %s: -export would write over it; %s", t.written, what, fix)
			}
			if other, ok := exported[r]; ok {
				return f.errAt(where, "%s is also the csv: of %s: -export would write one over the other; %s", t.written, other, fix)
			}
			if rundir.Within(rr, r) {
				return f.errAt(where, "%s is under -runs %s, which claims only reads: -export would write over a grid's file; %s outside %s", t.written, runs, fix, runs)
			}
			if info, err := os.Stat(t.CSV); err == nil && info.IsDir() {
				return f.errAt(where, "%s is a directory; %s", t.written, fix)
			}
			exported[r] = fmt.Sprintf("table %s (%s)", t.Name, filepath.Clean(f.Path))
		}
	}
	return nil
}
