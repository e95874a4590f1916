package position

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register("t5", func(s Spec, d Dims) (Scheme, error) {
		minBuckets := 2
		if d.Bidirectional {
			minBuckets = 4 // two directions, each with at least one exact bucket
		}
		if s.NumBuckets < minBuckets {
			return nil, fmt.Errorf("position.num_buckets: must be at least %d (model.bidirectional: %v), got %d", minBuckets, d.Bidirectional, s.NumBuckets)
		}
		if s.MaxDistance < 1 {
			return nil, fmt.Errorf("position.max_distance: must be positive, got %d", s.MaxDistance)
		}
		perDir := s.NumBuckets
		if d.Bidirectional {
			perDir /= 2
		}
		if exact := perDir / 2; s.MaxDistance <= exact {
			return nil, fmt.Errorf("position.max_distance: must exceed the %d distances that get a bucket each (half of the %d buckets per direction), got %d; raise position.max_distance or lower position.num_buckets", exact, perDir, s.MaxDistance)
		}
		if !(s.InitStd > 0) {
			return nil, fmt.Errorf("position.init_std: must be positive, got %g", s.InitStd)
		}
		rng := rand.New(rand.NewPCG(d.Seed, 0x75b1a5))
		return &T5{Heads: d.Heads, NumBuckets: s.NumBuckets, MaxDistance: s.MaxDistance, Bidirectional: d.Bidirectional,
			table: nn.Param{Name: "pos.t5.bias", Value: nn.Normal(d.Dtype, rng, s.InitStd, d.Heads, s.NumBuckets)}}, nil
	})
}

// T5 is the relative position bias of T5 (Raffel et al. 2020): a learned scalar per head and per
// bucket of relative distance, added to the attention logits of every layer (one table
// [heads, num_buckets] shared by all layers), initialised from N(0, init_std²). Half of a
// direction's buckets hold one distance each; the rest cover distances logarithmically up to
// max_distance, beyond which all distances share the last bucket (T5Bucket).
type T5 struct {
	Heads, NumBuckets, MaxDistance int
	Bidirectional                  bool
	table                          nn.Param

	mu    sync.Mutex // one bias node per graph, shared by its layers
	lastB *nn.Builder
	lastN *G.Node
}

func (t *T5) Name() string { return "t5" }

// Params returns the bias table [heads, num_buckets].
func (t *T5) Params() []nn.Param { return []nn.Param{t.table} }

// T5Bucket is the bucket of a relative position rel = j − i (key j, query i), exactly as T5's
// _relative_position_bucket (Mesh TensorFlow):
//
//	n = −rel; if bidirectional: buckets /= 2, ret = buckets if n < 0, n = |n|; else n = max(n, 0)
//	exact = buckets/2; n < exact: ret + n
//	else: ret + min(exact + ⌊ln(n/exact) / ln(maxDistance/exact) · (buckets − exact)⌋, buckets − 1)
//
// Causal: every key after the query (rel > 0) falls in bucket 0 with the query itself (the mask
// hides them anyway).
func T5Bucket(rel int, bidirectional bool, numBuckets, maxDistance int) int {
	ret, n := 0, -rel
	if bidirectional {
		numBuckets /= 2
		if n < 0 {
			ret = numBuckets
			n = -n
		}
	} else if n < 0 {
		n = 0
	}
	exact := numBuckets / 2
	if n < exact {
		return ret + n
	}
	large := exact + int(math.Log(float64(n)/float64(exact))/math.Log(float64(maxDistance)/float64(exact))*float64(numBuckets-exact))
	return ret + min(large, numBuckets-1)
}

// Bucket is T5Bucket with this scheme's settings.
func (t *T5) Bucket(rel int) int { return T5Bucket(rel, t.Bidirectional, t.NumBuckets, t.MaxDistance) }

// LogitBias gathers bias[h, i, j] = table[h, bucket(j − i)] for the graph's length (by token
// index within the sequence, not Ctx.Pos), through ops.RelativeBias, whose gradient sums into
// the table.
func (t *T5) LogitBias(c Ctx) (*G.Node, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lastB == c.B && t.lastN != nil {
		return t.lastN, nil
	}
	table, err := c.B.Param(t.table)
	if err != nil {
		return nil, err
	}
	T := c.Len
	buckets := make([]int, T*T)
	for i := 0; i < T; i++ {
		for j := 0; j < T; j++ {
			buckets[i*T+j] = t.Bucket(j - i)
		}
	}
	n, err := ops.RelativeBias(table, buckets, T)
	if err != nil {
		return nil, err
	}
	t.lastB, t.lastN = c.B, n
	return n, nil
}

// Table is, for each distance p = 0..n-1, the bucket of the key p tokens before the query and
// each head's current bias for it; bidirectional adds the bucket and biases of the key p tokens
// after the query.
func (t *T5) Table(n int) (Table, error) {
	vals := nn.Float64s(t.table.Value)
	dirs := []struct {
		suffix string
		sign   int
	}{{"", -1}}
	if t.Bidirectional {
		dirs = []struct {
			suffix string
			sign   int
		}{{"_before", -1}, {"_after", 1}}
	}
	var tb Table
	for _, d := range dirs {
		tb.Columns = append(tb.Columns, "bucket"+d.suffix)
	}
	for _, d := range dirs {
		for h := 0; h < t.Heads; h++ {
			tb.Columns = append(tb.Columns, fmt.Sprintf("head%d%s", h, d.suffix))
		}
	}
	for p := 0; p < n; p++ {
		var row []float64
		for _, d := range dirs {
			row = append(row, float64(t.Bucket(d.sign*p)))
		}
		for _, d := range dirs {
			b := t.Bucket(d.sign * p)
			for h := 0; h < t.Heads; h++ {
				row = append(row, vals[h*t.NumBuckets+b])
			}
		}
		tb.Rows = append(tb.Rows, row)
	}
	return tb, nil
}

// T5BucketsUsed is the number of distinct buckets that the relative distances of a sequence of
// n tokens reach: distances 0..n−1 to earlier keys, and with bidirectional attention also to
// later ones. When training sequences reach fewer buckets than test sequences, the test
// distances that fall in the others meet bias values that training never updated (still at
// their initialisation).
func T5BucketsUsed(n int, bidirectional bool, numBuckets, maxDistance int) int {
	seen := map[int]bool{}
	for d := 0; d < n; d++ {
		seen[T5Bucket(-d, bidirectional, numBuckets, maxDistance)] = true
		if bidirectional {
			seen[T5Bucket(d, bidirectional, numBuckets, maxDistance)] = true
		}
	}
	return len(seen)
}
