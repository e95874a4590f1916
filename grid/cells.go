package grid

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// CellOptions control how a grid's cells are trained (TrainCells).
type CellOptions struct {
	Jobs     int // runs in parallel; default 1
	Progress func(done, total int, cell *setup.Checked, res *train.Result, err error)
	Force    bool // replace existing run directories
	Resume   bool // keep finished runs, continue partial ones from their checkpoints
	// CopyFrom maps a cell's name to a finished run of the same config to copy instead of
	// training it (adopt; TuningCopies).
	CopyFrom map[string]string
}

// trainCell copies the cell's tuning run when it has one that is the same run (CopyFrom, adopt),
// else trains it (train.Train). When shared, the run is declared to the ops as one of several
// concurrent jobs, so that the runs share the cores (each op of each run on GOMAXPROCS/jobs
// workers) rather than each splitting every op over all of them. Same results either way.
func trainCell(ctx context.Context, c *setup.Checked, opt CellOptions, shared bool) (*train.Result, error) {
	if src := opt.CopyFrom[c.Config.Name]; src != "" {
		if res, err := adopt(src, c.Config, opt.Force); err != nil || res != nil {
			return res, err
		}
	}
	if shared {
		ops.JobStarted()
		defer ops.JobFinished()
	}
	return train.Train(ctx, c, train.Options{Force: opt.Force, Resume: opt.Resume})
}

// TrainCells trains every checked cell (setup.CheckCells'), Jobs at a time. Each run is
// deterministic, so the results do not depend on Jobs. It returns the results in cell order; the
// first error stops new runs. A run that diverges (train.DivergedError) is a result, not an
// error: the other cells run.
func TrainCells(ctx context.Context, cells []*setup.Checked, opt CellOptions) ([]*train.Result, error) {
	jobs := max(opt.Jobs, 1)
	results := make([]*train.Result, len(cells))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res, err := trainCell(ctx, cells[i], opt, jobs > 1)
				mu.Lock()
				done++
				var d *train.DivergedError
				if err != nil && !errors.As(err, &d) && firstErr == nil {
					firstErr = fmt.Errorf("run %s: %w", cells[i].Config.Name, err)
					cancel()
				}
				results[i] = res
				if opt.Progress != nil {
					opt.Progress(done, len(cells), cells[i], res, err)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range cells {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return results, firstErr
	}
	if ctx.Err() != nil { // a signal between runs
		return results, fmt.Errorf("%w before the grid's next run started; run the same command with -resume to continue", train.ErrInterrupted)
	}
	return results, nil
}
