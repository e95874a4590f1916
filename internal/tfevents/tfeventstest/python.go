// Package tfeventstest reads event files with an independent reader for tests: Python's
// protocol-buffer library (Debian's python3-protobuf) on classes protoc compiles from
// TensorBoard's event.proto and summary.proto fields (internal/tfevents/testdata), with its own
// CRC-32C.
package tfeventstest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/posformer/posformer/internal/tfevents"
)

// Python is the interpreter with Debian's python3-protobuf.
const Python = "/usr/bin/python3"

// Script is the independent reader, read_events.py.
func Script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "read_events.py")
}

// The check's outcome, found once per test binary.
var (
	once    sync.Once
	missing string
)

// Need skips the test when the reader cannot run (no protoc, or no protocol-buffer library for
// Python), saying why and how to install them; under CI (CI=true) it fails instead: .ci/run
// installs them, so their absence there is a broken set-up, not a reason to pass.
func Need(t testing.TB) {
	t.Helper()
	once.Do(func() {
		var why []string
		if _, err := exec.LookPath("protoc"); err != nil {
			why = append(why, "protoc is not on PATH")
		}
		if out, err := exec.Command(Python, "-c", "import google.protobuf").CombinedOutput(); err != nil {
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			why = append(why, fmt.Sprintf("%s cannot import google.protobuf (%v: %s)", Python, err, lines[len(lines)-1]))
		}
		if len(why) > 0 {
			missing = strings.Join(why, "; ") + "; on Debian: apt-get install -y python3-protobuf protobuf-compiler (.ci/run does it as root)"
		}
	})
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: the independent event-file reader cannot run: %s", missing)
	}
	t.Skipf("SKIPPED, the independent event-file reader did not run: %s", missing)
}

// Read reads the event file at path with read_events.py (call Need first): every event, and an
// error with the reader's message when it refuses the file (a checksum, a cut record, an
// unknown field).
func Read(path string) ([]tfevents.Event, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(Python, Script(), path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("read_events.py %s: %v: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	var events []tfevents.Event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	ended := false
	for sc.Scan() {
		var line struct {
			WallTime    string      `json:"wall_time"`
			Step        int64       `json:"step"`
			FileVersion *string     `json:"file_version"`
			Values      *[][]string `json:"values"`
			Records     *int        `json:"records"`
			Bytes       int         `json:"bytes"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("read_events.py %s: line %q: %v", path, sc.Text(), err)
		}
		if line.Records != nil {
			if *line.Records != len(events) {
				return nil, fmt.Errorf("read_events.py %s: counted %d records, printed %d", path, *line.Records, len(events))
			}
			ended = true
			continue
		}
		var e tfevents.Event
		if e.WallTime, err = strconv.ParseFloat(line.WallTime, 64); err != nil {
			return nil, fmt.Errorf("read_events.py %s: wall time %q: %v", path, line.WallTime, err)
		}
		e.Step = line.Step
		if line.FileVersion != nil {
			e.FileVersion = *line.FileVersion
		}
		if line.Values != nil {
			e.Values = []tfevents.Value{}
			for _, v := range *line.Values {
				bits, err := hex.DecodeString(v[1])
				if err != nil || len(bits) != 4 {
					return nil, fmt.Errorf("read_events.py %s: value %q: bits %q", path, v[0], v[1])
				}
				e.Values = append(e.Values, tfevents.Value{Tag: v[0], Simple: math.Float32frombits(binary.LittleEndian.Uint32(bits))})
			}
		}
		events = append(events, e)
	}
	if !ended {
		return nil, fmt.Errorf("read_events.py %s: no closing count", path)
	}
	return events, sc.Err()
}
