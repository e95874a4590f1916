package train

import (
	"fmt"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/position"
)

// Warnings lists what is valid in a config (defaults filled) but deserves a note, one line each:
// the CLI prints them on stderr before training and reports repeat them.
//
// t5: when the training sequences reach fewer relative-distance buckets than the test sequences
// use (position.T5BucketsUsed), the test distances in the other buckets meet bias values that
// training never updated.
func (c Config) Warnings() []string {
	var w []string
	p := c.Position
	if p.Kind == "t5" && len(c.Eval.Lengths) > 0 {
		task, err := c.newTask()
		if err != nil {
			return nil
		}
		nTrain := data.SeqLen(task, c.Task.MaxLen)
		nTest := data.SeqLen(task, c.Eval.Lengths[len(c.Eval.Lengths)-1])
		bTrain := position.T5BucketsUsed(nTrain, c.Model.Bidirectional, p.NumBuckets, p.MaxDistance)
		bTest := position.T5BucketsUsed(nTest, c.Model.Bidirectional, p.NumBuckets, p.MaxDistance)
		if bTrain < bTest {
			w = append(w, fmt.Sprintf("position: t5: the training sequences (up to %d tokens) reach %d of the %d relative-distance buckets the test sequences (up to %d tokens) use, so %d buckets keep their initial bias; to avoid it, train on longer inputs (task.max_len) or lower position.num_buckets and position.max_distance (T5's defaults, 32 and 128, which the papers kept)",
				nTrain, bTrain, bTest, nTest, bTest-bTrain))
		}
	}
	return w
}
