package data

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// streamSpan is a stream as docs/tasks.md writes it, `[2 3 1 ...]`.
var streamSpan = regexp.MustCompile("`\\[([0-9 ]+)\\]`")

// TestDocStreams: every example stream that a table of docs/tasks.md shows is what the task
// draws, data.TestSet(task, L, 1, 1)[0].Stream() with the default options: L is the row's "L"
// column where the table has one, else 4 (the tables headed "example stream, L = 4"); the task is
// the first registered task the row names. A table is checked whole, so a new task's row is
// checked once written, and a task without a row is not asked for one.
func TestDocStreams(t *testing.T) {
	doc, err := os.ReadFile("../docs/tasks.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	var header []string // the cells of the current table's header
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if header == nil {
			header = cells
			continue
		}
		if strings.HasPrefix(line, "| ---") {
			continue
		}
		m := streamSpan.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, L := "", 4
		for i, c := range cells {
			if strings.TrimSpace(header[i]) == "L" {
				if L, err = strconv.Atoi(strings.TrimSpace(c)); err != nil {
					t.Fatalf("a row's L is %q: %s", c, line)
				}
			}
			for _, w := range codeWords(c) {
				if name == "" && slices.Contains(Names(), w) {
					name = w
				}
			}
		}
		if name == "" {
			t.Errorf("a row with a stream names no task: %s", line)
			continue
		}
		ex, err := TestSet(mustNew(t, name, Options{}), L, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ex[0].Stream()); got != "["+m[1]+"]" {
			t.Errorf("%s at L = %d draws %s; docs/tasks.md shows [%s]: %s", name, L, got, m[1], line)
		}
		checked++
	}
	if checked < len(specs) {
		t.Errorf("checked %d streams in docs/tasks.md, fewer than its %d tasks with a reference: is the table's layout still parsed?", checked, len(specs))
	}
}

// codeWords are the words of a markdown cell's code spans.
func codeWords(cell string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
		out = append(out, strings.Fields(m[1])...)
	}
	return out
}
