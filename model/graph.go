package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/posformer/posformer/attention"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Graph is the model compiled for one (batch, length) shape: inputs, logits, loss and, for a
// training graph, the gradient of the loss with respect to every parameter. Build it once per
// shape and run it many times.
type Graph struct {
	Batch, Len int
	m          *Model
	vm         G.VM
	tokens     *tensor.Dense // [B·T] inputs, bound to the graph's input nodes
	pos        *tensor.Dense
	targets    *tensor.Dense
	weights    *tensor.Dense
	logits     *G.Node // [B·T, V]
	loss       *G.Node // scalar
	grads      []*G.Node
	maxPos     int
	captures   []*ops.AttentionCapture // one per layer in an inspection graph, else nil
	bytes      int64                   // GraphBytes of this shape
}

// BuildOptions choose what a graph computes.
type BuildOptions struct {
	// Grad adds the gradient of the loss with respect to every parameter (a training graph).
	Grad bool
	// MaxPos bounds the positions the graph will be given (exclusive). Default: the length.
	MaxPos int
	// Capture keeps every layer's attention weights for Graph.Attention (an inspection graph; it
	// holds layers × batch × heads × length² weights). Training and evaluation graphs leave it off.
	Capture bool
}

// Build compiles the model for batches of `batch` sequences of `length` tokens.
//
// Gorgonia v0.9.18 identifies a graph's nodes by a 32-bit hash code in two places that never
// check that the nodes are equal: Compile's value numbering (analysis.go, dataflow.vn) gives
// every node whose hash code an earlier node already has that node's register and drops its
// instruction, and ExprGraph.AddNode merges a new node into an existing one of the same hash
// code, op hash code, arity, type and shape. Two different nodes whose hash codes collide
// (about once in 10⁴–10⁵ graphs of our size) then silently compute the wrong thing, or crash:
// the ruoss2023 grid at -jobs 2 compiled a graph in which an MLP's first product was replaced by
// a layer norm's β [64], so the second product got x (64). Each op's hash code includes its
// serial number, which is why two runs in one process (whose ops interleave their numbers) met
// collisions that one run alone did not. Build therefore refuses such a graph before compiling
// it and builds it again: the new ops have new numbers, so new hash codes. A graph without a
// collision, the first attempt almost always, is exactly what it was before this check.
func (m *Model) Build(batch, length int, opt BuildOptions) (*Graph, error) {
	if batch < 1 || length < 1 {
		return nil, fmt.Errorf("model: batch (%d) and length (%d) must be positive", batch, length)
	}
	if opt.MaxPos == 0 {
		opt.MaxPos = length
	}
	if lc, ok := m.Scheme.(position.LengthChecker); ok {
		if err := lc.CheckPositions(opt.MaxPos); err != nil {
			return nil, err
		}
	}
	if tp, ok := m.Scheme.(position.TokenPositioner); ok {
		opt.MaxPos = tp.PositionBound()
	}
	for attempt := 1; ; attempt++ {
		gr, g, err := m.buildNodes(batch, length, opt, attempt)
		if err == nil {
			if a, b := HashCollision(g); a != nil {
				err = fmt.Errorf("%w: nodes %v and %v have hash code %08x", ops.ErrHashCollision, a, b, a.Hashcode())
			}
		}
		if errors.Is(err, ops.ErrHashCollision) && attempt < maxBuildAttempts {
			continue
		}
		if errors.Is(err, ops.ErrHashCollision) {
			return nil, fmt.Errorf("model: the graph for batch %d × length %d: %d attempts, each with a hash-code collision (the last: %w)", batch, length, attempt, err)
		}
		if err != nil {
			return nil, err
		}
		gr.vm = G.NewTapeMachine(g, G.WithEngine(ops.Engine{}))
		// The tape machine sets a finalizer that does nothing without CUDA, but an object with a
		// finalizer keeps everything it reaches (the graph, every op's buffers) alive through one
		// more garbage collection after it is dropped: with a graph per length, those stale
		// graphs piled up faster than they were freed (1.4 GB after evaluating lengths 1..60 that
		// need 0.2 GB each). Without it a closed graph is freed by the next collection.
		runtime.SetFinalizer(gr.vm, nil)
		return gr, nil
	}
}

// maxBuildAttempts bounds the graphs Build makes for one shape when their hash codes collide.
// A collision is about a 1-in-10⁴ event, so a second one in a row already means something else
// is wrong (the error then names the nodes).
const maxBuildAttempts = 4

// buildHook, when set (tests), sees every graph buildNodes makes before Build checks it.
var buildHook func(g *G.ExprGraph, attempt int)

// HashCollision returns two different nodes of g whose hash codes are equal (nil, nil when all
// differ). Gorgonia's compiler would treat them as one value; see Build.
func HashCollision(g *G.ExprGraph) (a, b *G.Node) {
	nodes := g.AllNodes()
	seen := make(map[uint32]*G.Node, len(nodes))
	for _, n := range nodes {
		h := n.Hashcode()
		if o, ok := seen[h]; ok && o != n {
			return o, n
		}
		seen[h] = n
	}
	return nil, nil
}

// buildNodes makes the graph's nodes (and, with opt.Grad, the gradient's), everything but the
// compiled tape machine.
func (m *Model) buildNodes(batch, length int, opt BuildOptions, attempt int) (*Graph, *G.ExprGraph, error) {
	b := nn.NewBuilder(m.Dtype)
	params := m.Params()
	pnodes := make([]*G.Node, len(params))
	for i, p := range params { // bind every parameter first, in Params order
		var err error
		if pnodes[i], err = b.Param(p); err != nil {
			return nil, nil, err
		}
	}
	n := batch * length
	gr := &Graph{Batch: batch, Len: length, m: m, maxPos: opt.MaxPos}
	if opt.Capture {
		gr.captures = make([]*ops.AttentionCapture, len(m.blocks))
		for i := range gr.captures {
			gr.captures[i] = &ops.AttentionCapture{}
		}
	}
	gr.bytes = GraphBytes(m.Cfg, Shape{Batch: batch, Len: length, Grad: opt.Grad, Capture: opt.Capture, Hooks: position.HooksOf(m.Scheme), MaxPos: opt.MaxPos})
	in := func(name string) (*G.Node, *tensor.Dense, error) {
		node, err := b.Input(name, n)
		if err != nil {
			return nil, nil, err
		}
		return node, node.Value().(*tensor.Dense), nil
	}
	tokens, tv, err := in("tokens")
	if err != nil {
		return nil, nil, err
	}
	pos, pv, err := in("positions")
	if err != nil {
		return nil, nil, err
	}
	targets, yv, err := in("targets")
	if err != nil {
		return nil, nil, err
	}
	weights, wv, err := in("loss_weights")
	if err != nil {
		return nil, nil, err
	}
	gr.tokens, gr.pos, gr.targets, gr.weights = tv, pv, yv, wv
	gr.setPositions(nil)

	if gr.logits, err = m.forward(position.Ctx{B: b, Batch: batch, Len: length, Pos: pos, MaxPos: opt.MaxPos, TrainLen: m.TrainLen, Grad: opt.Grad}, tokens, gr.captures); err != nil {
		return nil, nil, err
	}
	if gr.loss, err = ops.CrossEntropy(gr.logits, targets, weights); err != nil {
		return nil, nil, err
	}
	if opt.Grad {
		if gr.grads, err = G.Grad(gr.loss, pnodes...); err != nil {
			return nil, nil, fmt.Errorf("model: gradient: %w", err)
		}
	}
	if buildHook != nil {
		buildHook(b.G, attempt)
	}
	return gr, b.G, nil
}

// forward builds the logits [B·T, V] from the token ids; captures, when not nil, receive each
// layer's attention weights.
func (m *Model) forward(c position.Ctx, tokens *G.Node, captures []*ops.AttentionCapture) (*G.Node, error) {
	p := c.B.Param // parameters are already bound: this only looks them up
	must := func(pr nn.Param) *G.Node { n, _ := p(pr); return n }
	x, err := ops.Embed(must(m.tokEmb), tokens) // [B·T, D]
	if err != nil {
		return nil, err
	}
	if a, ok := m.Scheme.(position.EmbeddingAdder); ok {
		if x, err = a.AddToEmbeddings(c, x); err != nil {
			return nil, fmt.Errorf("model: %s embeddings: %w", m.Scheme.Name(), err)
		}
	}
	var shared attention.PerGraph // built once and handed to every layer
	// An evaluation's RowBiaser bias is evaluated by the attention, block of rows by block of rows.
	if rb, ok := m.Scheme.(position.RowBiaser); ok && !c.Grad {
		if shared.Rows, err = rb.RowBias(c); err != nil {
			return nil, fmt.Errorf("model: %s logit bias: %w", m.Scheme.Name(), err)
		}
	} else if lb, ok := m.Scheme.(position.LogitBiaser); ok {
		if shared.Bias, err = lb.LogitBias(c); err != nil { // [H, T, T], or by distance [(B·)H, 2T−1]
			return nil, fmt.Errorf("model: %s logit bias: %w", m.Scheme.Name(), err)
		}
	}
	if rk, ok := m.Scheme.(position.RelativeKeyer); ok {
		if shared.RelTable, err = rk.RelativeTable(c); err != nil { // [(B·)(2T−1), ·]
			return nil, fmt.Errorf("model: %s relative table: %w", m.Scheme.Name(), err)
		}
	}
	for i, bl := range m.blocks {
		h, err := ops.LayerNorm(x, must(bl.ln1G), must(bl.ln1B)) // [B·T, D]
		if err != nil {
			return nil, err
		}
		var capture *ops.AttentionCapture
		if captures != nil {
			capture = captures[i]
		}
		c.Layer = i
		a, err := bl.attn.BuildCapture(c, m.Scheme, h, shared, capture) // [B·T, D]
		if err != nil {
			return nil, fmt.Errorf("model: block %d: %w", i, err)
		}
		if x, err = ops.Add(x, a); err != nil { // [B·T, D]
			return nil, err
		}
		if h, err = ops.LayerNorm(x, must(bl.ln2G), must(bl.ln2B)); err != nil {
			return nil, err
		}
		if h, err = ops.Linear(h, must(bl.w1), must(bl.b1)); err != nil { // [B·T, F]
			return nil, err
		}
		if h, err = ops.GELU(h); err != nil {
			return nil, err
		}
		if h, err = ops.Linear(h, must(bl.w2), must(bl.b2)); err != nil { // [B·T, D]
			return nil, err
		}
		if x, err = ops.Add(x, h); err != nil { // [B·T, D]
			return nil, err
		}
	}
	x, err = ops.LayerNorm(x, must(m.lnfG), must(m.lnfB))
	if err != nil {
		return nil, err
	}
	return ops.Linear(x, must(m.headW), must(m.headB)) // [B·T, V]
}

func fill(t *tensor.Dense, src []int) {
	switch d := t.Data().(type) {
	case []float32:
		for i, v := range src {
			d[i] = float32(v)
		}
	case []float64:
		for i, v := range src {
			d[i] = float64(v)
		}
	}
}

func (g *Graph) setPositions(pos []int) {
	if pos == nil {
		pos = make([]int, g.Batch*g.Len)
		for i := range pos {
			pos[i] = i % g.Len
		}
	}
	fill(g.pos, pos)
}

// Input is one batch for a graph: B·T token ids, targets and loss weights, row-major, and
// optionally each token's position (nil: 0..T-1 in every sequence, or those a TokenPositioner
// scheme derives from the tokens).
type Input struct {
	Tokens    []int
	Targets   []int
	Weights   []float64
	Positions []int
	// PositionRNG draws a training batch's random position offsets for a TokenPositioner
	// scheme; nil: none (an evaluation).
	PositionRNG *rand.Rand
}

// Run binds the batch and runs the graph (forward, and backward for a training graph).
// It returns the loss.
func (g *Graph) Run(in Input) (float64, error) {
	if g.vm == nil {
		return 0, fmt.Errorf("model: the graph (batch %d × length %d) is closed", g.Batch, g.Len)
	}
	n := g.Batch * g.Len
	if len(in.Tokens) != n || len(in.Targets) != n || len(in.Weights) != n {
		return 0, fmt.Errorf("model: batch has %d tokens, %d targets, %d weights; the graph wants %d each (batch %d × length %d)",
			len(in.Tokens), len(in.Targets), len(in.Weights), n, g.Batch, g.Len)
	}
	for _, t := range in.Tokens {
		if t < 0 || t >= g.m.Cfg.Vocab {
			return 0, fmt.Errorf("model: token %d is outside the vocabulary [0, %d)", t, g.m.Cfg.Vocab)
		}
	}
	if tp, ok := g.m.Scheme.(position.TokenPositioner); ok && in.Positions == nil {
		var err error
		if in.Positions, err = tp.TokenPositions(in.Tokens, g.Batch, g.Len, in.PositionRNG); err != nil {
			return 0, err
		}
	}
	if in.Positions != nil {
		if len(in.Positions) != n {
			return 0, fmt.Errorf("model: %d positions for %d tokens", len(in.Positions), n)
		}
		for _, p := range in.Positions {
			if p < 0 || p >= g.maxPos {
				return 0, fmt.Errorf("model: position %d is outside [0, %d) that the graph was built for", p, g.maxPos)
			}
		}
	}
	fill(g.tokens, in.Tokens)
	fill(g.targets, in.Targets)
	switch d := g.weights.Data().(type) {
	case []float32:
		for i, v := range in.Weights {
			d[i] = float32(v)
		}
	case []float64:
		copy(d, in.Weights)
	}
	g.setPositions(in.Positions)
	g.vm.Reset()
	if err := g.vm.RunAll(); err != nil {
		return 0, fmt.Errorf("model: running the graph: %w", err)
	}
	return scalar(g.loss.Value())
}

func scalar(v G.Value) (float64, error) {
	switch s := v.Data().(type) {
	case float32:
		return float64(s), nil
	case float64:
		return s, nil
	}
	return 0, fmt.Errorf("model: loss is %T, not a scalar", v.Data())
}

// Logits returns the last run's logits [B·T, V]. The tensor is reused by the next run.
func (g *Graph) Logits() *tensor.Dense { return g.logits.Value().(*tensor.Dense) }

// Argmax returns, for every row of the last run's logits, the index of its largest value
// (the first one on ties).
func (g *Graph) Argmax() []int {
	l := g.Logits()
	v := l.Shape()[1]
	vals := nn.Float64s(l)
	out := make([]int, len(vals)/v)
	for r := range out {
		row := vals[r*v : (r+1)*v]
		best := 0
		for j, x := range row {
			if x > row[best] {
				best = j
			}
		}
		out[r] = best
	}
	return out
}

// Grads returns the last run's gradients, aligned with Model.Params (nil for an eval graph).
// The tensors are reused by the next run.
func (g *Graph) Grads() []*tensor.Dense {
	if g.grads == nil {
		return nil
	}
	out := make([]*tensor.Dense, len(g.grads))
	for i, n := range g.grads {
		out[i] = n.Value().(*tensor.Dense)
	}
	return out
}

// Bytes is the memory the graph holds once it has run, as GraphBytes predicts it.
func (g *Graph) Bytes() int64 { return g.bytes }

// collectBytes is the size from which closing a graph collects its memory at once.
const collectBytes = 8 << 20

// Close releases the graph's machine and its buffers; the graph cannot run again. A graph of
// collectBytes or more is garbage-collected at once (runtime.GC), so that the next graph (another
// length) reuses its memory instead of adding to it until the collector's next cycle: peak memory
// then stays at the largest graph instead of about twice it.
func (g *Graph) Close() {
	if g.vm == nil {
		return
	}
	g.vm.Close()
	g.vm = nil
	g.tokens, g.pos, g.targets, g.weights = nil, nil, nil, nil
	g.logits, g.loss, g.grads = nil, nil, nil
	if g.bytes >= collectBytes {
		runtime.GC()
	}
}

// Attention returns layer's attention weights from the last run, [B, H, T, T] row-major (entry
// ((b·H + h)·T + i)·T + j: query i, key j), for a graph built with Capture.
func (g *Graph) Attention(layer int) ([]float64, error) {
	if g.captures == nil {
		return nil, fmt.Errorf("model: the graph was built without BuildOptions.Capture")
	}
	if layer < 0 || layer >= len(g.captures) {
		return nil, fmt.Errorf("model: layer %d of %d", layer, len(g.captures))
	}
	return g.captures[layer].Weights()
}

// Layers is the number of transformer blocks.
func (g *Graph) Layers() int { return len(g.m.blocks) }
