package train

// What train allows in files an earlier posformer wrote: checkpoints without a checksum
// (warnUnverified) or without the fingerprint of their config (fingerprintless), and a run's
// config.yaml in an older layout (rewritten). They stay loadable in place: a migration could not
// add the missing checksum or fingerprint without vouching for bytes nothing checked.

import (
	"fmt"
	"os"
	"sync"

	"github.com/posformer/posformer/config"
	"go.yaml.in/yaml/v3"
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

// fingerprintless: a checkpoint from before fingerprints carries none (trainState.Config), so
// neither resuming nor loading can check that its config trained it; it passes.
func fingerprintless(st trainState) bool { return st.Config == "" }

// rewritten is a config.yaml (old, at path) as this posformer writes it: an earlier posformer's
// file read and written again (old itself if it does not read).
func rewritten(path string, old []byte) []byte {
	c, _, err := config.ReadWritten(path)
	if err != nil {
		return old
	}
	again, err := yaml.Marshal(c)
	if err != nil {
		return old
	}
	return again
}
