package position_test

// Property tests of alibi, t5, randomized positions and rope's evaluation-time scaling, in
// float64.

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// refALiBiSlopes transcribes the paper's reference code (Press et al., get_slopes):
//
//	start = 2**(-2**-(log2(n)-3)); slopes = [start*start**i for i in range(n)]      (n a power of 2)
//	else: c = 2**floor(log2(n)); get_slopes(c) + get_slopes(2c)[0::2][:n-c]
func refALiBiSlopes(n int) []float64 {
	l := math.Log2(float64(n))
	if l == math.Floor(l) {
		start := math.Pow(2, -math.Pow(2, -(l-3)))
		out := make([]float64, n)
		for i := range out {
			out[i] = start * math.Pow(start, float64(i))
		}
		return out
	}
	c := int(math.Pow(2, math.Floor(l)))
	out := refALiBiSlopes(c)
	double := refALiBiSlopes(2 * c)
	var every []float64
	for i := 0; i < len(double); i += 2 {
		every = append(every, double[i])
	}
	return append(out, every[:n-c]...)
}

func TestALiBiSlopes(t *testing.T) {
	// The paper's 8-head slopes: 1/2, 1/4, …, 1/256, exactly.
	want8 := []float64{1.0 / 2, 1.0 / 4, 1.0 / 8, 1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128, 1.0 / 256}
	if got := position.ALiBiSlopes(8); !slices.Equal(got, want8) {
		t.Errorf("8 heads: slopes %v, want %v", got, want8)
	}
	worst := 0.0
	for h := 1; h <= 16; h++ {
		got := position.ALiBiSlopes(h)
		ref := refALiBiSlopes(h)
		if len(got) != h || len(ref) != h {
			t.Fatalf("%d heads: %d slopes (reference %d)", h, len(got), len(ref))
		}
		for k := range got {
			worst = max(worst, math.Abs(got[k]-ref[k])/ref[k])
			if !(got[k] > 0 && got[k] < 1) {
				t.Errorf("%d heads: slope %d is %v, not in (0, 1)", h, k, got[k])
			}
		}
		if h&(h-1) == 0 { // a power of two: m_k = 2^(−8k/h) exactly
			for k := range got {
				if w := math.Pow(2, -8*float64(k+1)/float64(h)); got[k] != w {
					t.Errorf("%d heads: m_%d = %v, want 2^(−8·%d/%d) = %v", h, k+1, got[k], k+1, h, w)
				}
			}
		}
		s := slices.Clone(got)
		slices.Sort(s)
		if len(slices.Compact(s)) != h {
			t.Errorf("%d heads: slopes are not distinct: %v", h, got)
		}
	}
	t.Logf("max relative difference from the paper's get_slopes over 1..16 heads: %.3g", worst)
	if !(worst <= 4e-15) {
		t.Errorf("slopes differ from the paper's get_slopes by %.3g (relative)", worst)
	}
	// 6 heads: the 4 of c = 4, then the 1st and 3rd of the 8-head slopes.
	want6 := []float64{1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2, 1.0 / 8}
	if got := position.ALiBiSlopes(6); !slices.Equal(got, want6) {
		t.Errorf("6 heads: %v, want %v", got, want6)
	}
}

// biasValues builds a scheme's LogitBias for length T in a fresh float64 graph, runs it and
// returns [H·T·T] values (a bias by distance [H, 2T−1] spelled out per pair).
func biasValues(t *testing.T, s position.Scheme, T int) []float64 {
	t.Helper()
	b := nn.NewBuilder(tensor.Float64)
	lb := s.(position.LogitBiaser)
	c := position.Ctx{B: b, Batch: 1, Len: T, MaxPos: T}
	n, err := lb.LogitBias(c)
	if err != nil {
		t.Fatal(err)
	}
	G.Must(G.Sum(n)) // something to compute, so the machine evaluates n (and does not overwrite it)
	vm := G.NewTapeMachine(b.G)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	v := n.Value().Data().([]float64)
	if sh := n.Shape(); len(sh) == 2 && sh[1] == 2*T-1 { // by distance: entry i − j + T − 1
		H := sh[0]
		out := make([]float64, H*T*T)
		for h := 0; h < H; h++ {
			for i := 0; i < T; i++ {
				for j := 0; j < T; j++ {
					out[(h*T+i)*T+j] = v[h*(2*T-1)+i-j+T-1]
				}
			}
		}
		return out
	}
	return slices.Clone(v)
}

// TestALiBiBias: causal, m_h·(j − i); an encoder's, Ruoss et al.'s −m_h·|i − j| + m_h/2 for the
// keys before the query (−m_h·|i − j| on both sides with position.symmetric); 0 on the
// diagonal; every head, length and pair.
func TestALiBiBias(t *testing.T) {
	for _, mode := range []string{"causal", "bidirectional", "symmetric"} {
		bidir := mode != "causal"
		for _, H := range []int{1, 3, 4, 8} {
			spec := position.Spec{Kind: "alibi"}
			if mode == "symmetric" {
				spec = spec.With("symmetric", true)
			}
			s := mustNew(t, spec, position.Dims{DModel: 8 * H, Heads: H, Dtype: tensor.Float64, Bidirectional: bidir})
			checkHooks(t, s, false, false, true, false, true) // a LengthChecker through its Randomizer
			m := position.ALiBiSlopes(H)
			for _, T := range []int{1, 2, 7, 33} {
				v := biasValues(t, s, T)
				if len(v) != H*T*T {
					t.Fatalf("bias has %d values, want %d", len(v), H*T*T)
				}
				worst := 0.0
				for h := 0; h < H; h++ {
					for i := 0; i < T; i++ {
						if d := v[(h*T+i)*T+i]; d != 0 {
							t.Errorf("H %d, T %d, head %d: diagonal bias at %d is %v, want 0", H, T, h, i, d)
						}
						for j := 0; j < T; j++ {
							if !bidir && j > i {
								continue // masked
							}
							want := m[h] * float64(j-i)
							if bidir {
								want = -m[h] * math.Abs(float64(i-j))
							}
							if mode == "bidirectional" && j < i {
								want += m[h] / 2
							}
							worst = max(worst, math.Abs(v[(h*T+i)*T+j]-want))
						}
					}
				}
				if !(worst <= 1e-12) {
					t.Errorf("%s, H %d, T %d: bias differs from the formula by %.3g", mode, H, T, worst)
				}
			}
			tab, err := s.(position.Tabler).Table(50)
			sides := map[bool]int{false: 1, true: 2}[bidir]
			if err != nil || len(tab.Rows) != 50 || len(tab.Columns) != sides*H {
				t.Fatalf("alibi table: %v, %d rows, columns %v", err, len(tab.Rows), tab.Columns)
			}
			for p, row := range tab.Rows {
				for c, x := range row {
					h := c % H
					want := -m[h] * float64(p)
					if mode == "bidirectional" && c < H && p > 0 {
						want += m[h] / 2
					}
					if x != want {
						t.Fatalf("%s: alibi table[%d][%s] = %v, want %v", mode, p, tab.Columns[c], x, want)
					}
				}
			}
		}
	}
}

// refT5Bucket is an independent implementation of T5's bucketing: instead of taking the floor of
// a logarithm, it counts the thresholds exact·(maxDistance/exact)^(k/(buckets−exact)),
// k = 1, 2, …, that the distance reaches.
func refT5Bucket(rel int, bidirectional bool, numBuckets, maxDistance int) int {
	nb, offset, n := numBuckets, 0, 0
	switch {
	case bidirectional && rel > 0: // a key after the query
		nb /= 2
		offset, n = nb, rel
	case bidirectional:
		nb /= 2
		n = -rel
	case rel < 0:
		n = -rel
	}
	exact := nb / 2
	if n < exact {
		return offset + n
	}
	k := 0
	for k < nb-exact-1 && float64(n) >= float64(exact)*math.Pow(float64(maxDistance)/float64(exact), float64(k+1)/float64(nb-exact)) {
		k++
	}
	return offset + exact + k
}

func TestT5Buckets(t *testing.T) {
	type params struct{ buckets, maxDistance int }
	for _, bidir := range []bool{false, true} {
		for _, p := range []params{{32, 128}, {8, 6}, {10, 50}, {64, 1000}, {12, 20}, {4, 3}} {
			if bidir && p.buckets < 8 {
				continue
			}
			per := p.buckets
			if bidir {
				per /= 2
			}
			prev := [2]int{-1, -1}
			for d := 0; d <= 1000; d++ {
				for dir, rel := range []int{-d, d} { // key d tokens before, after the query
					got := position.T5Bucket(rel, bidir, p.buckets, p.maxDistance)
					want := refT5Bucket(rel, bidir, p.buckets, p.maxDistance)
					if got != want {
						t.Fatalf("bidirectional %v, %d buckets, max distance %d: bucket(j−i = %d) = %d, reference %d", bidir, p.buckets, p.maxDistance, rel, got, want)
					}
					if got < 0 || got >= p.buckets {
						t.Fatalf("bucket %d outside [0, %d)", got, p.buckets)
					}
					if !bidir && rel > 0 && got != 0 {
						t.Fatalf("causal: a later key (j−i = %d) is in bucket %d, want 0", rel, got)
					}
					if bidir && d > 0 && (dir == 1) != (got >= per) {
						t.Fatalf("bidirectional: j−i = %d in bucket %d: the wrong half", rel, got)
					}
					if d < per/2 && (dir == 0 || bidir) && got%per != d {
						t.Fatalf("distance %d below %d is not its own bucket: %d", d, per/2, got)
					}
					if d >= p.maxDistance && (dir == 0 || bidir) && got%per != per-1 {
						t.Fatalf("distance %d ≥ max distance %d: bucket %d, want the last", d, p.maxDistance, got)
					}
					if (dir == 0 || bidir) && got < prev[dir] {
						t.Fatalf("buckets decrease with distance: %d then %d at %d", prev[dir], got, d)
					}
					prev[dir] = got
				}
			}
		}
	}
	// Spot values of the default (32 buckets, 128), causal: distances 0..15 exact, then
	// 16 + ⌊ln(n/16)/ln 8 · 16⌋.
	for n, want := range map[int]int{0: 0, 15: 15, 16: 16, 20: 17, 32: 21, 64: 26, 100: 30, 127: 31, 128: 31, 1000: 31} {
		if got := position.T5Bucket(-n, false, 32, 128); got != want {
			t.Errorf("T5Bucket(−%d, causal, 32, 128) = %d, want %d", n, got, want)
		}
	}
}

func TestT5Bias(t *testing.T) {
	for _, bidir := range []bool{false, true} {
		dims := position.Dims{DModel: 12, Heads: 3, Dtype: tensor.Float64, Seed: 4, Bidirectional: bidir}
		s := mustNew(t, position.Spec{Kind: "t5"}.With("num_buckets", 10).With("max_distance", 12), dims)
		checkHooks(t, s, false, false, true, true, false)
		ps := s.(position.Parameterized).Params()
		if len(ps) != 1 || !ps[0].Value.Shape().Eq(tensor.Shape{3, 10}) {
			t.Fatalf("t5 params: %v", ps)
		}
		tab := nn.Float64s(ps[0].Value)
		const T = 30
		v := biasValues(t, s, T)
		for h := 0; h < 3; h++ {
			for i := 0; i < T; i++ {
				for j := 0; j < T; j++ {
					b := position.T5Bucket(j-i, bidir, 10, 12)
					if got := v[(h*T+i)*T+j]; got != tab[h*10+b] {
						t.Fatalf("bias[%d,%d,%d] = %v, want table[%d, bucket %d] = %v", h, i, j, got, h, b, tab[h*10+b])
					}
				}
			}
		}
		tb, err := s.(position.Tabler).Table(40)
		if err != nil {
			t.Fatal(err)
		}
		cols := 1 + 3
		if bidir {
			cols = 2 + 6
		}
		if len(tb.Columns) != cols || len(tb.Rows) != 40 {
			t.Fatalf("t5 table: columns %v, %d rows", tb.Columns, len(tb.Rows))
		}
		for p, row := range tb.Rows {
			if b := position.T5Bucket(-p, bidir, 10, 12); row[0] != float64(b) {
				t.Fatalf("t5 table row %d: bucket %v, want %d", p, row[0], b)
			}
		}
	}
	// Defaults: 32 buckets, max distance 128.
	d := position.Spec{Kind: "t5"}
	if nb, _ := d.Option("num_buckets"); nb != 32 {
		t.Errorf("t5 default num_buckets %v", nb)
	}
	if md, _ := d.Option("max_distance"); md != 128 {
		t.Errorf("t5 default max_distance %v", md)
	}
	if _, ok := (position.Spec{Kind: "rope"}).Option("num_buckets"); ok {
		t.Errorf("rope has t5's option num_buckets")
	}
	if o := (position.Spec{Kind: "rope"}).WithDefaults(); o.MaxRandom != 0 {
		t.Errorf("rope's defaults fill the randomized options: %+v", o)
	}
}

func TestRandomizedPositions(t *testing.T) {
	for _, L := range []int{1, 2, 7, 64, 256, 1000} {
		r := position.Randomization{MaxRandom: L}
		for _, n := range []int{0, 1, L / 3, L / 2, L - 1, L} {
			if n < 0 {
				continue
			}
			for seed := uint64(1); seed <= 5; seed++ {
				p := r.Sample(position.PositionRNG(seed, position.TrainStream, uint64(n)), n)
				if len(p) != n {
					t.Fatalf("L %d, n %d: %d positions", L, n, len(p))
				}
				for i, x := range p {
					if x < 0 || x >= L {
						t.Fatalf("L %d, n %d: position %d outside [0, %d)", L, n, x, L)
					}
					if i > 0 && x <= p[i-1] {
						t.Fatalf("L %d, n %d: positions not strictly increasing (sorted and distinct): %v", L, n, p)
					}
				}
				again := r.Sample(position.PositionRNG(seed, position.TrainStream, uint64(n)), n)
				if !slices.Equal(p, again) {
					t.Fatalf("L %d, n %d, seed %d: two draws from the same seed differ", L, n, seed)
				}
			}
		}
	}
	// Different seeds, steps and streams give different positions.
	r := position.Randomization{MaxRandom: 256}
	a := r.Batch(position.PositionRNG(1, position.TrainStream, 7), 4, 20)
	for _, o := range [][]int{
		r.Batch(position.PositionRNG(2, position.TrainStream, 7), 4, 20),
		r.Batch(position.PositionRNG(1, position.TrainStream, 8), 4, 20),
		r.Batch(position.PositionRNG(1, position.EvalStream, 7), 4, 20),
	} {
		if slices.Equal(a, o) {
			t.Errorf("two different (seed, stream, index) gave the same positions %v", a[:20])
		}
	}
	if slices.Equal(a[:20], a[20:40]) {
		t.Errorf("two sequences of one batch got the same positions")
	}
	// Uniform: each of L positions is included with probability n/L. Over 4000 draws of 10 of
	// 40, each count is Binomial(4000, 0.25): mean 1000, sd ≈ 27.
	const draws, n, L = 4000, 10, 40
	counts := make([]int, L)
	rng := position.PositionRNG(3, position.TrainStream, 0)
	for range draws {
		for _, x := range (position.Randomization{MaxRandom: L}).Sample(rng, n) {
			counts[x]++
		}
	}
	for x, c := range counts {
		if math.Abs(float64(c)-1000) > 6*27 {
			t.Errorf("position %d drawn %d times in %d draws, want about 1000", x, c, draws)
		}
	}
}

func TestRandomizedSchemes(t *testing.T) {
	dims := position.Dims{DModel: 16, Heads: 2, Dtype: tensor.Float64, Seed: 1}
	for _, kind := range []string{"sinusoidal", "learned", "rope"} {
		rows := func(s position.Spec, n int) position.Spec { // a learned table's rows
			if kind == "learned" {
				return s.With("max_positions", n)
			}
			return s
		}
		s := mustNew(t, rows(position.Spec{Kind: kind, Randomized: true, MaxRandom: 100}, 100), dims)
		sm, ok := s.(position.Sampler)
		if !ok {
			t.Fatalf("%s randomized: not a Sampler", kind)
		}
		r, on := sm.Randomization()
		if !on || r.MaxRandom != 100 || !r.AtEval {
			t.Errorf("%s randomized: %+v, %v; want max_random 100, sampled at evaluation (the default)", kind, r, on)
		}
		lc := s.(position.LengthChecker)
		if err := lc.CheckPositions(100); err != nil {
			t.Errorf("%s: CheckPositions(100) with max_random 100: %v", kind, err)
		}
		if err := lc.CheckPositions(101); err == nil || !strings.Contains(err.Error(), "position.max_random") {
			t.Errorf("%s: CheckPositions(101) with max_random 100: %v, want an error naming position.max_random", kind, err)
		}
		if s.Name() != kind {
			t.Errorf("randomized %s is named %q", kind, s.Name())
		}
		_, adder := s.(position.EmbeddingAdder)
		_, rot := s.(position.QKRotator)
		if adder != (kind != "rope") || rot != (kind == "rope") {
			t.Errorf("randomized %s: EmbeddingAdder %v, QKRotator %v", kind, adder, rot)
		}
		plain := mustNew(t, rows(position.Spec{Kind: kind, Randomized: true, EvalPositions: "plain"}, 300), dims)
		if r, _ := plain.(position.Sampler).Randomization(); r.AtEval || r.MaxRandom != position.DefaultMaxRandom {
			t.Errorf("%s, eval_positions plain: %+v", kind, r)
		}
		if kind == "learned" { // the table's rows beyond max_random stay readable (report plots)
			if tab, err := plain.(position.Tabler).Table(300); err != nil || len(tab.Rows) != 300 {
				t.Errorf("randomized learned, 300 rows, max_random 256: Table(300): %v", err)
			}
		}
		off := mustNew(t, position.Spec{Kind: kind}, dims)
		if sm, ok := off.(position.Sampler); ok {
			if _, on := sm.Randomization(); on {
				t.Errorf("%s without randomized: Randomization is on", kind)
			}
		}
	}
}

// ropeGraph rotates q [N, D] at the given positions with a rope scheme's RotateQK in a graph of
// length n (the evaluation length) for a model trained on trainLen tokens.
func ropeGraph(t *testing.T, s position.Scheme, q []float64, pos []float64, D, n, trainLen int) []float64 {
	t.Helper()
	N := len(pos)
	b := nn.NewBuilder(tensor.Float64)
	qn, _ := b.Const("test.q", tensor.New(tensor.WithShape(N, D), tensor.WithBacking(slices.Clone(q))))
	kn, _ := b.Const("test.k", tensor.New(tensor.WithShape(N, D), tensor.WithBacking(slices.Clone(q))))
	pn, _ := b.Const("test.pos", tensor.New(tensor.WithShape(N), tensor.WithBacking(slices.Clone(pos))))
	qr, _, err := s.(position.QKRotator).RotateQK(position.Ctx{B: b, Batch: N / n, Len: n, Pos: pn, MaxPos: n, TrainLen: trainLen}, qn, kn)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(b.G)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(qr.Value().Data().([]float64))
}

func TestRopeScaling(t *testing.T) {
	const D, H = 32, 2
	dims := position.Dims{DModel: D, Heads: H, Dtype: tensor.Float64}
	plain := mustNew(t, position.Spec{Kind: "rope"}.With("base", 500), dims).(*position.RoPE)
	interp := mustNew(t, position.Spec{Kind: "rope"}.With("base", 500).With("rope_scaling", "interpolate"), dims).(*position.RoPE)
	ntk := mustNew(t, position.Spec{Kind: "rope"}.With("base", 500).With("rope_scaling", "ntk"), dims).(*position.RoPE)
	rng := rand.New(rand.NewPCG(3, 4))

	// At scale 1 (evaluation within the training lengths) both equal plain rope, bit for bit.
	for _, n := range []int{1, 5, 20} {
		pos := make([]float64, 2*n)
		for i := range pos {
			pos[i] = float64(i % n)
		}
		q := randn(rng, len(pos)*D)
		want := ropeGraph(t, plain, q, pos, D, n, 20)
		for _, s := range []*position.RoPE{interp, ntk} {
			if b, sc := s.ScaledFor(n, 20); b != 500 || sc != 1 {
				t.Errorf("%s at length %d ≤ 20: base %v, scale %v; want 500, 1", s.Scaling, n, b, sc)
			}
			if got := ropeGraph(t, s, q, pos, D, n, 20); !slices.Equal(got, want) {
				t.Errorf("%s at length %d ≤ training 20: differs from plain rope (max %.3g)", s.Scaling, n, maxAbsDiff(got, want))
			}
		}
		if got := ropeGraph(t, interp, q, pos, D, n, 0); !slices.Equal(got, want) {
			t.Errorf("interpolate with the training length unknown: differs from plain rope")
		}
	}

	// Beyond training: interpolation rotates position p as plain rope rotates p·L_train/L_eval;
	// NTK uses base' = base·s^(d/(d−2)).
	worstI, worstN, worstF := 0.0, 0.0, 0.0
	for _, c := range []struct{ n, train int }{{21, 20}, {40, 20}, {64, 16}, {1000, 7}} {
		s := float64(c.n) / float64(c.train)
		if b, sc := interp.ScaledFor(c.n, c.train); b != 500 || math.Abs(sc-1/s) > 1e-15 {
			t.Errorf("interpolate %d/%d: base %v, scale %v; want 500, %v", c.n, c.train, b, sc, 1/s)
		}
		d := float64(ntk.Rot)
		wantBase := 500 * math.Pow(s, d/(d-2))
		b, sc := ntk.ScaledFor(c.n, c.train)
		if sc != 1 || math.Abs(b-wantBase) > 1e-12*wantBase {
			t.Errorf("ntk %d/%d: base %v, scale %v; want %v, 1", c.n, c.train, b, sc, wantBase)
		}
		// The NTK base keeps θ₀ = 1 and divides the lowest frequency by exactly s.
		th, th2 := ntk.Theta(), (&position.RoPE{Base: b, Rot: ntk.Rot}).Theta()
		worstF = max(worstF, math.Abs(th2[0]-1), math.Abs(th2[len(th2)-1]*s/th[len(th)-1]-1))

		pos := make([]float64, c.n)
		for i := range pos {
			pos[i] = float64(i)
		}
		q := randn(rng, c.n*D)
		gotI := ropeGraph(t, interp, q, pos, D, c.n, c.train)
		gotN := ropeGraph(t, ntk, q, pos, D, c.n, c.train)
		ntkRef := &position.RoPE{Base: wantBase, Heads: H, HeadDim: D / H, Rot: ntk.Rot}
		for p := range c.n {
			for h := range H {
				lo, hi := p*D+h*(D/H), p*D+(h+1)*(D/H)
				worstI = max(worstI, maxAbsDiff(gotI[lo:hi], plain.Rotate(q[lo:hi], float64(p)/s)))
				worstN = max(worstN, maxAbsDiff(gotN[lo:hi], ntkRef.Rotate(q[lo:hi], float64(p))))
			}
		}
	}
	t.Logf("beyond training: interpolate vs Rotate(p·L_train/L_eval) %.3g; ntk vs Rotate with base·s^(d/(d−2)) %.3g; ntk θ₀ and θ_last/s error %.3g", worstI, worstN, worstF)
	if !within(worstI, 1e-12) || !within(worstN, 1e-12) || !within(worstF, 1e-12) {
		t.Errorf("rope scaling: errors %.3g, %.3g, %.3g > 1e-12", worstI, worstN, worstF)
	}
}

func TestNewSchemeErrors(t *testing.T) {
	f64 := tensor.Float64
	d := position.Dims{DModel: 64, Heads: 4, Dtype: f64}
	bi := position.Dims{DModel: 64, Heads: 4, Dtype: f64, Bidirectional: true}
	cases := []struct {
		name  string
		spec  position.Spec
		dims  position.Dims
		wants []string
	}{
		{"t5 max_distance", position.Spec{Kind: "t5"}.With("max_distance", -3), d, []string{"position.max_distance: must be positive, got -3"}},
		{"t5 max_distance within exact", position.Spec{Kind: "t5"}.With("num_buckets", 32).With("max_distance", 16), d, []string{"position.max_distance", "16"}},
		{"t5 buckets", position.Spec{Kind: "t5"}.With("num_buckets", 1), d, []string{"position.num_buckets", "at least 2"}},
		{"t5 bidirectional buckets", position.Spec{Kind: "t5"}.With("num_buckets", 3), bi, []string{"position.num_buckets", "at least 4"}},
		{"t5 init_std", position.Spec{Kind: "t5"}.With("init_std", -1), d, []string{"position.init_std"}},
		{"randomized kerple", position.Spec{Kind: "kerple", Randomized: true}, d, []string{"position.randomized", "kerple"}},
		{"alibi symmetric in a decoder", position.Spec{Kind: "alibi"}.With("symmetric", true), d, []string{"position.symmetric", "model.bidirectional"}},
		{"randomized none", position.Spec{Kind: "none", Randomized: true}, d, []string{"position.randomized"}},
		{"max_random", position.Spec{Kind: "rope", Randomized: true, MaxRandom: -2}, d, []string{"position.max_random: must be positive, got -2"}},
		{"eval_positions", position.Spec{Kind: "rope", Randomized: true, EvalPositions: "sorted"}, d, []string{"position.eval_positions", `"sorted"`}},
		{"learned shorter than max_random", position.Spec{Kind: "learned", Randomized: true, MaxRandom: 512}, d, []string{"position.max_positions", "512"}},
		{"rope_scaling", position.Spec{Kind: "rope"}.With("rope_scaling", "llama2"), d, []string{"position.rope_scaling", `"llama2"`}},
		{"dynamic_ntk without factor", position.Spec{Kind: "rope"}.With("rope_scaling", "dynamic_ntk"), d, []string{"position.rope_factor", "dynamic_ntk", "got 0"}},
		{"dynamic_ntk factor below 1", position.Spec{Kind: "rope"}.With("rope_scaling", "dynamic_ntk").With("rope_factor", 0.5), d, []string{"position.rope_factor", "got 0.5"}},
		{"rope_factor without dynamic_ntk", position.Spec{Kind: "rope"}.With("rope_scaling", "yarn").With("rope_factor", 2), d, []string{"position.rope_factor", "remove"}},
		{"dynamic_ntk with 2 rotated dims", position.Spec{Kind: "rope"}.With("rope_scaling", "dynamic_ntk").With("rope_factor", 2).With("rotary_fraction", 0.125), d, []string{"position.rope_scaling", "dynamic_ntk", "2"}},
		{"ntk with 2 rotated dims", position.Spec{Kind: "rope"}.With("rope_scaling", "ntk").With("rotary_fraction", 0.125), d, []string{"position.rope_scaling", "2"}},
		{"rope scaling with randomized", position.Spec{Kind: "rope", Randomized: true}.With("rope_scaling", "ntk"), d, []string{"position.rope_scaling", "position.randomized"}},
	}
	for _, tc := range cases {
		s, err := position.New(tc.spec, tc.dims)
		if err == nil {
			t.Errorf("%s: New(%+v) = %v, want an error", tc.name, tc.spec, s)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
}
