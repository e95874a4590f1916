package position

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/posformer/posformer/internal/fielderr"
)

// Randomization is the randomized-positions option of sinusoidal, learned and rope (Ruoss et
// al. 2023, "Randomized Positional Encodings Boost Length Generalization of Transformers"): in
// training, a sequence of n tokens is given n distinct positions drawn uniformly from
// [0, MaxRandom) and sorted, so the model sees every position up to L_max = MaxRandom while
// training only on short sequences. At evaluation the positions are drawn the same way (AtEval,
// the paper's protocol) or are the plain 0..n-1.
type Randomization struct {
	MaxRandom int  // L_max: positions are drawn from [0, MaxRandom)
	AtEval    bool // evaluation samples positions too; otherwise it uses 0..n-1
	// Anchored: the first position is 0 and the other n−1 are drawn from [1, MaxRandom), so
	// that position d is the randomized distance d (relative schemes, which read distances:
	// Ruoss et al.'s code draws n−1 sorted distances from [1, L), see relative.go).
	Anchored bool
}

// Sampler schemes want randomized positions: the trainer draws them (Randomization.Batch) and
// passes them as the graph's positions, with every graph built for MaxPos = MaxRandom.
type Sampler interface {
	// Randomization returns the option, and false when the scheme does not randomize.
	Randomization() (Randomization, bool)
}

// Sample returns n distinct integers drawn uniformly from [0, MaxRandom), in increasing order
// (Knuth's selection sampling, algorithm S: every n-subset is equally likely). It panics when
// n > MaxRandom; CheckPositions rejects such lengths before any graph is built.
//
// Anchored: position 0, then n−1 distinct integers drawn the same way from [1, MaxRandom).
func (r Randomization) Sample(rng *rand.Rand, n int) []int {
	if n > r.MaxRandom || n < 0 {
		panic(fmt.Sprintf("position: cannot draw %d distinct positions below %d", n, r.MaxRandom))
	}
	out := make([]int, 0, n)
	t := 0
	if r.Anchored && n > 0 {
		out, t = append(out, 0), 1
	}
	for ; t < r.MaxRandom && len(out) < n; t++ {
		// Select t with probability (still needed)/(still available).
		if rng.IntN(r.MaxRandom-t) < n-len(out) {
			out = append(out, t)
		}
	}
	return out
}

// Batch returns the positions of a batch of b sequences of n tokens, row-major: one independent
// sorted sample per sequence.
func (r Randomization) Batch(rng *rand.Rand, b, n int) []int {
	pos := make([]int, 0, b*n)
	for range b {
		pos = append(pos, r.Sample(rng, n)...)
	}
	return pos
}

// CheckPositions rejects sequences of more than MaxRandom tokens: they cannot get distinct
// positions below L_max (and plain positions 0..n-1 would leave the range trained on).
func (r Randomization) CheckPositions(n int) error {
	if n > r.MaxRandom && r.Anchored {
		return fielderr.New("position.max_random", "randomized distances are drawn from [1, %d) but a sequence of %d tokens needs %d distinct distances; raise position.max_random to at least %d", r.MaxRandom, n, n-1, n)
	}
	if n > r.MaxRandom {
		return fielderr.New("position.max_random", "randomized positions are drawn from [0, %d) but a sequence of %d tokens needs %d distinct positions; raise position.max_random to at least %d", r.MaxRandom, n, n, n)
	}
	return nil
}

// Streams of PositionRNG: training steps and evaluation batches never share random numbers.
const (
	TrainStream uint64 = 0x706f735f74726e31 // "pos_trn1"
	EvalStream  uint64 = 0x706f735f65766c32 // "pos_evl2"
	TokenStream uint64 = 0x706f735f746f6b33 // "pos_tok3": a TokenPositioner's training offsets
)

// PositionRNG is the random source of the positions of one batch: a pure function of the run's
// seed, a stream and an index (the training step; for evaluation a mix of the length and the
// batch number). Randomized positions therefore need no state in checkpoints: a resumed run
// draws the same positions at the same step.
func PositionRNG(seed, stream, index uint64) *rand.Rand {
	h := splitmix(stream + golden)
	h = splitmix((h ^ seed) + golden)
	h = splitmix((h ^ index) + golden)
	return rand.New(rand.NewPCG(splitmix(h+golden), splitmix(h+golden+golden)))
}

const golden uint64 = 0x9e3779b97f4a7c15

func splitmix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// MaxRandomLimit bounds max_random: sampling walks [0, max_random) once per sequence, a
// sinusoidal table has max_random rows, and positions travel as the graph's float type.
const MaxRandomLimit = 1 << 17

// checkRandomized validates the randomized option (defaults filled) for kind k.
func (s Spec) checkRandomized(k *kindDef) error {
	if !k.randomizable {
		var can []string
		for _, kind := range Kinds() {
			if Randomizable(kind) {
				can = append(can, kind)
			}
		}
		return fielderr.New("position.randomized", "only %s take randomized positions, not %s; remove position.randomized or change position.kind", strings.Join(can, ", "), s.Kind)
	}
	if s.MaxRandom < 1 {
		return fielderr.New("position.max_random", "must be positive, got %d", s.MaxRandom)
	}
	if s.MaxRandom > MaxRandomLimit {
		return fielderr.New("position.max_random", "%d is more than %d, the most positions posformer samples from (and that float32 holds exactly); lower it", s.MaxRandom, MaxRandomLimit)
	}
	if s.EvalPositions != "random" && s.EvalPositions != "plain" {
		return fielderr.New("position.eval_positions", "must be random or plain, got %q", s.EvalPositions)
	}
	return nil
}

// Randomizer is the one mechanism of randomized positions: a scheme that reads each token's
// position from Ctx.Pos embeds it and registers with Def.Randomizable; with
// position.randomized, New hands it the option, and the scheme is then a Sampler whose
// positions the trainer draws (every graph built for MaxPos = max_random) and a LengthChecker
// that refuses sequences longer than max_random. Without the option it samples nothing and
// checks nothing.
type Randomizer struct {
	random *Randomization // nil: plain positions 0..n-1
	// anchored: the scheme reads distances, drawn as Randomization.Anchored says
	anchored bool
}

func (x *Randomizer) setRandomization(r Randomization) {
	r.Anchored = x.anchored
	x.random = &r
}

// Randomization is the randomized-positions option, if set (Sampler).
func (x *Randomizer) Randomization() (Randomization, bool) {
	if x.random == nil {
		return Randomization{}, false
	}
	return *x.random, true
}

// checkRandom refuses n positions beyond max_random when randomized.
func (x *Randomizer) checkRandom(n int) error {
	if x.random == nil {
		return nil
	}
	return x.random.CheckPositions(n)
}

// randomizable is a scheme that embeds Randomizer.
type randomizable interface {
	Scheme
	setRandomization(Randomization)
}
