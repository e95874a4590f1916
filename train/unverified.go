package train

import (
	"fmt"
	"os"
	"sync"
)

// Warn prints a warning (the CLI's stderr; tests replace it).
var Warn = func(msg string) { fmt.Fprintf(os.Stderr, "train: warning: %s\n", msg) }

// unverified holds the checkpoints already warned about, so each is named once per process.
var unverified sync.Map

// warnUnverified says that the checkpoint at path has no checksum trailer. It loads (a
// checkpoint written before checksums has none, and docs/runs.md keeps those loadable), but
// one whose trailer was cut off reads the same, so nothing vouches for its bytes.
func warnUnverified(path string) {
	if _, seen := unverified.LoadOrStore(path, true); seen {
		return
	}
	Warn(fmt.Sprintf("checkpoint %s has no checksum (written before posformer wrote them, or its trailer was removed): it cannot be verified, and a changed byte would pass unseen; to have a checked one, train the run again (-force), or -resume it if it is unfinished (its next checkpoint carries a checksum)", path))
}
