// Package rundir is the run directory: its layout (the names posformer writes in it), its lock
// (one process at a time), atomic writes (a reader sees the old file or the new one, never half),
// what -force may remove (Clear), and the fingerprints that tell whether a checkpoint was trained
// with a directory's config. It imports nothing of posformer but data (the scores files its tasks declare): package train
// writes runs through it, and report and cmd/train write their files with WriteFileAtomic. docs/runs.md says what
// each file holds and who reads it.
package rundir

import (
	"fmt"
	"path/filepath"
)

// The names of a run directory's files that other packages refer to (the others are in
// runFiles).
const (
	// DiagnosticsFile holds the evaluation's attention diagnostics and decoded failures.
	DiagnosticsFile = "diagnostics.json"
	// BestCheckpoint holds the weights of the best validation when train.early_stop is on.
	BestCheckpoint = "best.bin"
	// ExportName is the file `train export` writes in the run directory when no -o is given.
	ExportName = "model.safetensors"
)

// VariantDir is the directory, inside a run directory, of an evaluation variant's results.
func VariantDir(name string) string { return "eval-" + name }

// ResultsCheckpoint names the checkpoint in dir that a run's results came from: BestCheckpoint
// when it trained with train.early_stop (earlyStop), else its last state, checkpoint.bin.
// Commands that inspect or export a run's model load this file.
func ResultsCheckpoint(dir string, earlyStop bool) string {
	if earlyStop {
		return filepath.Join(dir, BestCheckpoint)
	}
	return filepath.Join(dir, "checkpoint.bin")
}

// RetrainFix is what to do about the run in dir whose weights are lost (its checkpoint missing
// or damaged).
func RetrainFix(dir string) string {
	return fmt.Sprintf("the run's weights are lost: train it again (the command that trained it, with -force; for a run of a grid, delete %s and run the grid's command with -resume)", dir)
}
