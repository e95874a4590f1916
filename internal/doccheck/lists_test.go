package doccheck

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/position"
)

// The lists of tasks and schemes the documents hold, checked against the registries (data.Names,
// position.Kinds) by TestTaskLists and TestSchemeLists. Each test with -update rewrites what it
// can generate (go test ./internal/doccheck -run 'TestTaskLists|TestSchemeLists' -update), so that
// a new task or scheme file needs no hand edit for the tests to pass: docs/tasks.md's "Adding a
// task" and docs/schemes.md's "Adding a scheme" say what to write by hand afterwards.

// codeSpan finds `...` in markdown.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// spanWords are the words of a text's code spans (a span may hold several, space-separated).
func spanWords(text string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.Fields(m[1])...)
	}
	return out
}

// rewrite writes path's text with old replaced by new, for -update.
func rewrite(t *testing.T, path, text, old, new string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Replace(text, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("-update: rewrote %s", path)
}

// taskNameRow is configs/README.md's task.name row as the registry gives it: the default and
// every task, by kind.
func taskNameRow() string {
	byKind := map[string][]string{}
	for _, n := range data.Names() {
		byKind[data.KindOf(n)] = append(byKind[data.KindOf(n)], "`"+n+"`")
	}
	var kinds []string
	for _, k := range []string{data.KindSequence, data.KindText} {
		if len(byKind[k]) > 0 {
			kinds = append(kinds, fmt.Sprintf("%s (%s)", strings.Join(byKind[k], ", "), map[string]string{
				data.KindSequence: "generated examples, scored by exact match and token accuracy",
				data.KindText:     "windows of a corpus, scored by bits per byte",
			}[k]))
		}
	}
	return "| `task.name` | `copy` | one of the tasks: " + strings.Join(kinds, "; ") +
		"; each described in [docs/tasks.md](../docs/tasks.md) |"
}

// taskIndex is docs/tasks.md's list of every task, between its markers.
func taskIndex() string {
	var names []string
	for _, n := range data.Names() {
		names = append(names, "`"+n+"`")
	}
	return "The tasks: " + strings.Join(names, ", ") + ".\n"
}

// TestTaskLists: configs/README.md's task.name row and docs/tasks.md's index name every
// registered task and nothing else.
func TestTaskLists(t *testing.T) {
	const readme = "../../configs/README.md"
	src, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, "| `task.name` |")
	if i < 0 {
		t.Fatalf("%s has no task.name row", readme)
	}
	row := s[i : i+strings.IndexByte(s[i:], '\n')]
	if want := taskNameRow(); row != want {
		if *update {
			rewrite(t, readme, s, row, want)
		} else {
			t.Errorf("%s's task.name row is not the registry's (go test ./internal/doccheck -run TestTaskLists -update rewrites it):\ngot  %s\nwant %s", readme, row, want)
		}
	}

	const tasks = "../../docs/tasks.md"
	src, err = os.ReadFile(tasks)
	if err != nil {
		t.Fatal(err)
	}
	s = string(src)
	const begin, end = "<!-- tasks: begin -->\n", "<!-- tasks: end -->"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q list", tasks, begin, end)
	}
	if got, want := s[i+len(begin):j], taskIndex(); got != want {
		if *update {
			rewrite(t, tasks, s, begin+got+end, begin+want+end)
		} else {
			t.Errorf("%s's list of tasks is not the registry's (go test ./internal/doccheck -run TestTaskLists -update rewrites it):\ngot  %s\nwant %s", tasks, got, want)
		}
	}
	// The tables of docs/tasks.md whose rows are tasks ("| name |" or "| task |" first) name
	// registered tasks only.
	inTable := false
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		if strings.HasPrefix(line, "| name |") || strings.HasPrefix(line, "| task |") {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(line, "| ---") {
			continue
		}
		for _, w := range spanWords(strings.SplitN(line, "|", 3)[1]) {
			if w = strings.Trim(w, ","); !slices.Contains(data.Names(), w) {
				t.Errorf("%s: a table row names %q, which is no task: %s", tasks, w, line)
			}
		}
	}
}

// isTaskOption tells whether a table's first cell is a config key rather than a task (the rows
// of docs/tasks.md's tables that describe a task.* key).
func isTaskOption(w string) bool { return strings.HasPrefix(w, "task.") }

// schemeParagraph is README.md's sentence listing the schemes: from "The position scheme is
// pluggable:" to the end of the first line that ends with a full stop.
func schemeParagraph(t *testing.T, s string) string {
	i := strings.Index(s, "The position scheme is pluggable:")
	if i < 0 {
		t.Fatal("README.md has no sentence \"The position scheme is pluggable: ...\"")
	}
	j := i
	for {
		n := strings.IndexByte(s[j:], '\n')
		if n < 0 {
			t.Fatal("README.md's list of schemes does not end with a full stop")
		}
		j += n
		if strings.HasSuffix(s[i:j], ".") {
			return s[i:j]
		}
		j++
	}
}

// optionKeys are the option keys of every scheme (log_scaling, randomized, ...), which README's
// list of schemes may name beside them.
func optionKeys() []string {
	var out []string
	for _, k := range position.Kinds() {
		for _, o := range position.Options(k) {
			out = append(out, o.Key)
		}
	}
	return out
}

// schemeRow is a generated row of docs/schemes.md's table for a scheme that has none: its hooks,
// its one-line doc and whether it trains, from the registry; its author replaces the formula.
func schemeRow(kind string) string {
	h := position.KindHooks(kind)
	var hooks []string
	for _, x := range []struct {
		on   bool
		text string
	}{{h.AddsEmbedding, "adds to the embeddings"}, {h.RotatesQK, "rotates q and k"}, {h.BiasesLogits, "logit bias"}, {h.RelativeKeys, "query-dependent term"}} {
		if x.on {
			hooks = append(hooks, x.text)
		}
	}
	if len(hooks) == 0 {
		hooks = []string{"computes the attention"}
	}
	trains := "no"
	if position.ParamCount(position.Spec{Kind: kind}, position.Dims{DModel: 64, Heads: 4, Layers: 2}) > 0 {
		trains = "yes"
	}
	doc := strings.ReplaceAll(position.Doc(kind), "|", `\|`) // a bar in a cell ends it
	return fmt.Sprintf("| `%s` | %s | %s | %s |", kind, strings.Join(hooks, ", "), doc, trains)
}

// TestSchemeLists: README.md's list of schemes names every registered scheme (beside option
// keys) and nothing else; docs/schemes.md's table has a row for every registered scheme and none
// for another. -update adds a missing scheme to README's list and a generated row to the table.
func TestSchemeLists(t *testing.T) {
	const readme = "../../README.md"
	src, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	para := schemeParagraph(t, s)
	words := spanWords(para)
	var missing []string
	for _, k := range position.Kinds() {
		if !slices.Contains(words, k) {
			missing = append(missing, k)
		}
	}
	for _, w := range words {
		if !slices.Contains(position.Kinds(), w) && !slices.Contains(optionKeys(), w) {
			t.Errorf("%s's list of schemes names %q, which is neither a scheme nor an option of one", readme, w)
		}
	}
	if len(missing) > 0 {
		if *update {
			last := strings.LastIndex(para, "`")
			rewrite(t, readme, s, para, para[:last]+" "+strings.Join(missing, " ")+para[last:])
		} else {
			t.Errorf("%s's list of schemes lacks %s (go test ./internal/doccheck -run TestSchemeLists -update adds it)", readme, strings.Join(missing, ", "))
		}
	}

	const schemes = "../../docs/schemes.md"
	src, err = os.ReadFile(schemes)
	if err != nil {
		t.Fatal(err)
	}
	s = string(src)
	const header = "| kind | hook | formula | trainable |\n| --- | --- | --- | --- |\n"
	i := strings.Index(s, header)
	if i < 0 {
		t.Fatalf("%s has no table %q", schemes, header)
	}
	j := i + len(header)
	for j < len(s) && strings.HasPrefix(s[j:], "|") {
		j += strings.IndexByte(s[j:], '\n') + 1
	}
	table := s[i:j]
	var rows []string
	for _, line := range strings.Split(strings.TrimSuffix(table[len(header):], "\n"), "\n") {
		kind := strings.Trim(strings.TrimSpace(strings.SplitN(line, "|", 3)[1]), "`")
		if strings.HasPrefix(kind, "any, with `") { // an option of every scheme (log_scaling)
			if o := strings.TrimSuffix(strings.TrimPrefix(kind, "any, with `"), "`"); !slices.Contains(optionKeys(), o) {
				t.Errorf("%s's table has a row for %q, which is no option", schemes, o)
			}
			continue
		}
		if !slices.Contains(position.Kinds(), kind) {
			t.Errorf("%s's table has a row for %q, which is no scheme", schemes, kind)
		}
		rows = append(rows, kind)
	}
	var add []string
	for _, k := range position.Kinds() {
		if !slices.Contains(rows, k) {
			add = append(add, schemeRow(k))
		}
	}
	if len(add) > 0 {
		if *update {
			rewrite(t, schemes, s, table, table+strings.Join(add, "\n")+"\n")
		} else {
			t.Errorf("%s's table has no row for %d schemes (go test ./internal/doccheck -run TestSchemeLists -update adds a generated one; then write its formula):\n%s", schemes, len(add), strings.Join(add, "\n"))
		}
	}
}
