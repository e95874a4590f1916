package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// issueNumber is how the project's own bookkeeping shows in a text: "issue 38", "Issues 15 and 39".
// A reader has no such issues; a document says what the question was instead. Another project's
// issue is written with its repository and "#" ("its GitHub issue #16").
var issueNumber = regexp.MustCompile(`(?i)\bissues? [0-9]`)

// TestNoIssueNumbers: no text file under docs/ and configs/, nor README.md, names one of the
// project's issues by number.
func TestNoIssueNumbers(t *testing.T) {
	const root = "../.."
	files := []string{filepath.Join(root, "README.md")}
	for _, dir := range []string{"docs", "configs"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	texts := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(src) || strings.ContainsRune(string(src), 0) { // an image
			continue
		}
		texts++
		for i, line := range strings.Split(string(src), "\n") {
			if m := issueNumber.FindString(line); m != "" {
				rel, _ := filepath.Rel(root, f)
				t.Errorf("%s:%d names %q: say in words what the question was (a reader has no such issue)", rel, i+1, m)
			}
		}
	}
	if texts < 50 {
		t.Fatalf("only %d text files read under docs/, configs/ and README.md", texts)
	}
}

// TestIssueNumberPattern: the pattern finds the forms the documents used and spares the rest.
func TestIssueNumberPattern(t *testing.T) {
	for s, want := range map[string]bool{
		"the questions of issue 38 judged":      true,
		"Issue 39 point 1: attention":           true,
		"(issues 15 and 39)":                    true,
		"its GitHub issue #16":                  false,
		"/work/grids/issue38/runs":              false,
		"the issue's measure":                   false,
		"tissue 3 layers":                       false,
		"an open issue: 3 seeds are not enough": false,
	} {
		if got := issueNumber.MatchString(s); got != want {
			t.Errorf("%q: matched %v, want %v", s, got, want)
		}
	}
}

// TestPerformanceFiguresLogged: every figure of docs/performance.md's measurements (a number with a
// decimal point or of three digits or more, up to its "Measuring on your machine" section) appears
// in docs/performance-log.md or docs/performance-log.txt, so that the user page only quotes what the
// log of the rounds holds: a new measurement goes into the log first.
func TestPerformanceFiguresLogged(t *testing.T) {
	page, log := readFile(t, "../../docs/performance.md"), readFile(t, "../../docs/performance-log.md")
	log = append(log, readFile(t, "../../docs/performance-log.txt")...)
	text := string(page)
	end := strings.Index(text, "\n## Measuring on your machine")
	if end < 0 {
		t.Fatal(`docs/performance.md has no "## Measuring on your machine" section`)
	}
	number := regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	logged := map[string]bool{}
	for _, n := range number.FindAllString(string(log), -1) {
		logged[n] = true
	}
	checked := 0
	for _, n := range number.FindAllString(text[:end], -1) {
		if !strings.ContainsAny(n, ".,") && len(n) < 3 {
			continue
		}
		checked++
		if !logged[n] {
			t.Errorf("docs/performance.md quotes %s, which docs/performance-log.md does not hold: add the measurement to the log", n)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d figures checked in docs/performance.md", checked)
	}
}
