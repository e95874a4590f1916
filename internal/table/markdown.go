package table

import "strings"

// Col is a markdown table's column: its heading, and whether its cells are right-aligned
// (numbers: "---:" in the separator row) or left-aligned ("---").
type Col struct {
	Head  string
	Right bool
}

// L is a left-aligned column, R a right-aligned one.
func L(head string) Col { return Col{Head: head} }

// R is a right-aligned column.
func R(head string) Col { return Col{Head: head, Right: true} }

// MarkdownHead writes a markdown table's heading row and its separator row, derived from the
// columns: "| a | b |\n| --- | ---: |\n".
func MarkdownHead(b *strings.Builder, cols ...Col) {
	heads, seps := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		heads[i], seps[i] = c.Head, "---"
		if c.Right {
			seps[i] = "---:"
		}
	}
	MarkdownRow(b, heads...)
	MarkdownRow(b, seps...)
}

// MarkdownRow writes one row of a markdown table, each cell between "| " and " |":
// "| a | b |\n".
func MarkdownRow(b *strings.Builder, cells ...string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}
