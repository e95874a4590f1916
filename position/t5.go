package position

import (
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[T5Options, *T5]{
		Kind: "t5",
		Doc:  "learned relative bias per head and distance bucket (Raffel et al. 2020)",
		New: func(o T5Options, d Dims) (*T5, error) {
			minBuckets := 2
			if d.Bidirectional {
				minBuckets = 4 // two directions, each with at least one exact bucket
			}
			if o.NumBuckets < minBuckets {
				return nil, fielderr.New("position.num_buckets", "must be at least %d (model.bidirectional: %v), got %d", minBuckets, d.Bidirectional, o.NumBuckets)
			}
			if o.MaxDistance < 1 {
				return nil, fielderr.New("position.max_distance", "must be positive, got %d", o.MaxDistance)
			}
			perDir := o.NumBuckets
			if d.Bidirectional {
				perDir /= 2
			}
			if exact := perDir / 2; o.MaxDistance <= exact {
				return nil, fielderr.New("position.max_distance", "must exceed the %d distances that get a bucket each (half of the %d buckets per direction), got %d; raise position.max_distance or lower position.num_buckets", exact, perDir, o.MaxDistance)
			}
			if !(o.InitStd > 0) {
				return nil, fielderr.New("position.init_std", "must be positive, got %g", o.InitStd)
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			rng := rand.New(rand.NewPCG(d.Seed, 0x75b1a5))
			return &T5{Heads: d.Heads, NumBuckets: o.NumBuckets, MaxDistance: o.MaxDistance, Bidirectional: d.Bidirectional,
				table: nn.Param{Name: "pos.t5.bias", Value: nn.Normal(d.Dtype, rng, o.InitStd, d.Heads, o.NumBuckets)}, LogScale: ls}, nil
		},
		Params: func(o T5Options, d Dims) int { return max(o.NumBuckets, 0) * max(d.Heads, 1) },
	})
}

// T5Options are t5's options.
type T5Options struct {
	// NumBuckets is the number of relative-distance buckets (half per direction when
	// bidirectional). 0: refused.
	NumBuckets int `yaml:"num_buckets" default:"32" doc:"relative-distance buckets (half per direction when model.bidirectional); at least 2 (4 bidirectional)"`
	// MaxDistance is the distance where the logarithmic buckets end. 0: refused.
	MaxDistance int `yaml:"max_distance" default:"128" doc:"distance where the logarithmic buckets end; must exceed the exact distances, num_buckets/2 (bidirectional: num_buckets/4)"`
	// InitStd is the standard deviation of the bias table's initial values. 0: refused.
	InitStd float64 `yaml:"init_std" default:"0.02" doc:"standard deviation of the bias table's initial values"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks T5 claims, checked at compile time.
var (
	_ DistanceBiaser = (*T5)(nil)
	_ Parameterized  = (*T5)(nil)
	_ Tabler         = (*T5)(nil)
	_ Warner         = (*T5)(nil)
)

// T5 is the relative position bias of T5 (Raffel et al. 2020): a learned scalar per head and per
// bucket of relative distance, added to the attention logits of every layer (one table
// [heads, num_buckets] shared by all layers), initialised from N(0, init_std²). Half of a
// direction's buckets hold one distance each; the rest cover distances logarithmically up to
// max_distance, beyond which all distances share the last bucket (T5Bucket).
type T5 struct {
	Heads, NumBuckets, MaxDistance int
	Bidirectional                  bool
	table                          nn.Param
	LogScale
}

func (t *T5) Name() string { return "t5" }

// BiasByDistance: the bias is a table by distance (DistanceBiaser).
func (t *T5) BiasByDistance() {}

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
	large := exact + int(pmath.Log(float64(n)/float64(exact))/pmath.Log(float64(maxDistance)/float64(exact))*float64(numBuckets-exact))
	return ret + min(large, numBuckets-1)
}

// Bucket is T5Bucket with this scheme's settings.
func (t *T5) Bucket(rel int) int { return T5Bucket(rel, t.Bidirectional, t.NumBuckets, t.MaxDistance) }

// LogitBias gathers the bias by distance, [heads, 2·Len − 1], entry (h, i − j + Len − 1) =
// table[h, bucket(j − i)], for the graph's length (by token index within the sequence, not
// Ctx.Pos), through ops.RelativeBias, whose gradient sums into the table.
func (t *T5) LogitBias(c Ctx) (*G.Node, error) {
	table, err := c.B.Param(t.table)
	if err != nil {
		return nil, err
	}
	T := c.Len
	buckets := make([]int, 2*T-1)
	for d := -(T - 1); d < T; d++ { // d = i − j
		buckets[d+T-1] = t.Bucket(-d)
	}
	n, err := ops.RelativeBias(table, buckets, T)
	if err != nil {
		return nil, err
	}
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

// Warnings notes when the training sequences reach fewer relative-distance buckets than the
// test sequences use (T5BucketsUsed): the test distances in the other buckets meet bias values
// that training never updated.
func (t *T5) Warnings(nTrain, nTest int) []string {
	bTrain := T5BucketsUsed(nTrain, t.Bidirectional, t.NumBuckets, t.MaxDistance)
	bTest := T5BucketsUsed(nTest, t.Bidirectional, t.NumBuckets, t.MaxDistance)
	if bTrain >= bTest {
		return nil
	}
	return []string{fmt.Sprintf("position: t5: the training sequences (up to %d tokens) reach %d of the %d relative-distance buckets the test sequences (up to %d tokens) use, so %d buckets keep their initial bias; to avoid it, train on longer inputs (task.max_len) or lower position.num_buckets and position.max_distance (T5's defaults, 32 and 128, which the papers kept)",
		nTrain, bTrain, bTest, nTest, bTest-bTrain)}
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
