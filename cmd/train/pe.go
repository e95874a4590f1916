package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// runPE prints a scheme's raw table as CSV: one row per position, one column per dimension
// (sinusoidal, learned: the values) or per rotated pair (rope: the angles p·θᵢ); for the
// relative schemes one row per distance p (alibi: each head's bias −m_h·p; t5: the bucket of the
// key p tokens back, and after with -bidirectional, and each head's initial bias), in full
// float64 precision.
// peSpecKeys maps pe's flags to the position: keys they set.
var peSpecKeys = map[string]string{"base": "base", "rotary-fraction": "rotary_fraction", "max-positions": "max_positions",
	"buckets": "num_buckets", "max-distance": "max_distance"}

func runPE(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("scheme", "sinusoidal", "position scheme: "+fmt.Sprint(position.Kinds()))
	n := fs.Int("positions", 64, "number of positions (rows)")
	dim := fs.Int("dim", 16, "model dimension (rope: the head dimension, with -heads 1)")
	heads := fs.Int("heads", 1, "attention heads (rope rotates each head's d_model/heads values)")
	base := fs.Float64("base", position.DefaultBase, "frequency base")
	frac := fs.Float64("rotary-fraction", position.DefaultRotaryFraction, "rope: fraction of each head rotated")
	maxPos := fs.Int("max-positions", position.DefaultMaxPositions, "learned: table rows")
	seed := fs.Uint64("seed", 1, "learned, t5: initialisation seed")
	bidir := fs.Bool("bidirectional", false, "alibi, t5: the bidirectional variant (model.bidirectional)")
	buckets := fs.Int("buckets", position.DefaultNumBuckets, "t5: number of buckets")
	maxDist := fs.Int("max-distance", position.DefaultMaxDistance, "t5: distance where the logarithmic buckets end")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || *n > 1<<20 {
		return fmt.Errorf("pe: -positions must be between 1 and %d, got %d", 1<<20, *n)
	}
	if *dim < 1 || *dim > 1<<14 || *maxPos > 1<<20 {
		return fmt.Errorf("pe: -dim must be between 1 and %d and -max-positions at most %d, got %d and %d", 1<<14, 1<<20, *dim, *maxPos)
	}
	if float64(*n)*float64(*dim) > 1<<26 {
		return fmt.Errorf("pe: -positions %d × -dim %d is more than %d values; print fewer positions", *n, *dim, 1<<26)
	}
	if !slices.Contains(position.Kinds(), *kind) {
		return fmt.Errorf("pe: -scheme: unknown scheme %q (known: %s)", *kind, strings.Join(position.Kinds(), ", "))
	}
	if *heads < 1 || *dim%*heads != 0 {
		return fmt.Errorf("pe: -heads must be positive and divide -dim %d, got %d", *dim, *heads)
	}
	// A flag given is a value written (0 included), never replaced by the scheme's default.
	spec := position.Spec{Kind: *kind, Base: *base, RotaryFraction: *frac, MaxPositions: *maxPos, NumBuckets: *buckets, MaxDistance: *maxDist}
	flagOf := map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		if key, ok := peSpecKeys[f.Name]; ok {
			spec.Written = spec.Written.With(key)
			flagOf[key] = f.Name
		}
	})
	s, err := position.New(spec, position.Dims{DModel: *dim, Heads: *heads, Dtype: tensor.Float64, Seed: *seed, Bidirectional: *bidir})
	if err != nil {
		if key, _, ok := strings.Cut(strings.TrimPrefix(err.Error(), "position."), ":"); ok && flagOf[key] != "" {
			return fmt.Errorf("pe: -%s: %w", flagOf[key], err)
		}
		return fmt.Errorf("pe: %w", err)
	}
	tb, ok := s.(position.Tabler)
	if !ok {
		return fmt.Errorf("pe: scheme %q has no table (it adds no position values); try sinusoidal, learned, rope, alibi or t5", *kind)
	}
	t, err := tb.Table(*n)
	if err != nil {
		return fmt.Errorf("pe: %w", err)
	}
	w := csv.NewWriter(stdout)
	w.Write(append([]string{"position"}, t.Columns...))
	row := make([]string, len(t.Columns)+1)
	for p, vals := range t.Rows {
		row[0] = strconv.Itoa(p)
		for j, v := range vals {
			row[j+1] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		w.Write(row)
	}
	w.Flush()
	return w.Error()
}
