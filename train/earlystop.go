package train

import (
	"path/filepath"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/rundir"
)

// observe applies the rule of e (config.EarlyStop) to the validation score at a step (counted
// from 1) and tells whether it improved on the best (the caller then saves the best checkpoint)
// and whether to stop.
func observe(e config.EarlyStop, st *trainState, step int, score float64) (improved, stop bool) {
	if st.BestStep == 0 || score > st.BestScore+e.MinDelta {
		st.BestScore, st.BestStep, st.Bad = score, step, 0
		improved = true
	} else {
		st.Bad++
	}
	stop = (e.Target > 0 && score >= e.Target) || (e.Patience > 0 && st.Bad >= e.Patience)
	return improved, stop
}

// ResultsCheckpoint names the checkpoint a run directory's results came from
// (rundir.ResultsCheckpoint: best.bin with train.early_stop, else checkpoint.bin), reading its
// config.yaml.
func ResultsCheckpoint(dir string) (string, error) {
	cfg, _, err := config.ReadWritten(filepath.Join(dir, "config.yaml"))
	if err != nil {
		return "", err
	}
	return rundir.ResultsCheckpoint(dir, cfg.Train.EarlyStop.On()), nil
}
