package train

import (
	"fmt"
	"path/filepath"

	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/rundir"
)

// checkTrainedBy refuses the weights of a checkpoint (at ckpt, its state st) that was trained with
// another config than the run directory's config.yaml, a checkpoint copied from another run:
// inspect and export would otherwise show and write another run's model under this one's name.
// Checkpoints from before fingerprints carry none and pass (fingerprintless).
func checkTrainedBy(runDir, ckpt string, st trainState) error {
	if fingerprintless(st) {
		return nil
	}
	path := filepath.Join(runDir, "config.yaml")
	src, err := regfile.ReadFile(path)
	if err != nil {
		return err
	}
	if d := rundir.FingerprintDiff(st.Config, rundir.Fingerprint(rewritten(path, src))); d != "" {
		return fmt.Errorf("%s was trained with another config than %s: %s; it is not this run's checkpoint: train the run again with -force", ckpt, path, d)
	}
	return nil
}
