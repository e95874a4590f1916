// Package ops holds posformer's own Gorgonia operations: fused, allocation-light kernels with
// hand-written gradients for the pieces a transformer needs (linear layers, layer norm, GELU,
// causal attention, rotary embeddings, embedding gathers and cross-entropy).
//
// They exist because the built-in ops either are missing (LayerNorm, GELU), are buggy in
// gorgonia v0.9.18 / tensor v0.9.24 (SoftMax's max seed, InverseSqrt's and ByIndices' gradients,
// in-place ops on Reshape views), or are slow (one allocation and goroutine fan-out per op).
// Gorgonia also takes two different nodes whose 32-bit hash codes collide for one node: its
// compiler's value numbering (analysis.go, dataflow.vn) drops the later node's instruction and
// reads the earlier node's register instead, and ExprGraph.AddNode (through ApplyOp) returns an
// existing node for a new one when their hash codes, their ops' hash codes, arity, type and
// shape agree. model.Build refuses and rebuilds a graph with such a collision (HashCollision),
// and apply refuses a node Gorgonia merged (ErrHashCollision).
// Every op here is an ordinary Gorgonia Op with a symbolic gradient (SDOp), so the model is still
// differentiated by Gorgonia; each gradient is checked against central finite differences in
// float64 by this package's tests.
//
// Conventions:
//   - activations are 2-D, [N, D] with N = batch·length rows; no op here reshapes its inputs, so
//     nothing aliases a Reshape view;
//   - integer inputs (token ids, positions, targets) travel as tensors of the graph's float dtype
//     (exact for integers below 2^24 in float32);
//   - each op owns its output buffer and reuses it across runs of the same graph; ops never
//     write into their inputs.
//
// Speed (docs/performance.md): matrix products go through a blocked GEMM with Go-assembly
// micro-kernels (AVX-512 or AVX2+FMA, chosen at run time; gonum elsewhere, OpenBLAS with the
// openblas build tag), and the float32 GELU, softmax exponential and layer-norm statistics have
// AVX2 kernels (GELU and the exponential sixteen-wide on AVX-512). float64 keeps exact scalar math, so the gradient checks measure the ops' formulas.
package ops

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Float is the element type of every kernel.
type Float interface{ float32 | float64 }

var serial atomic.Uint64

// base carries the bookkeeping every op shares. Each op instance gets a serial number in its
// hash so that Gorgonia never merges two nodes whose ops hold different hidden state.
type base struct {
	name  string
	id    uint64
	arity int
}

func newBase(name string, arity int) base {
	return base{name: name, id: serial.Add(1), arity: arity}
}

func (b *base) Arity() int            { return b.arity }
func (b *base) ReturnsPtr() bool      { return false }
func (b *base) CallsExtern() bool     { return false }
func (b *base) OverwritesInput() int  { return -1 }
func (b *base) WriteHash(h hash.Hash) { fmt.Fprintf(h, "posformer.%s#%d", b.name, b.id) }
func (b *base) String() string        { return b.name }
func (b *base) Hashcode() uint32 {
	h := fnv.New32a()
	b.WriteHash(h)
	return h.Sum32()
}

// tt is a d-dimensional tensor type over the type variable a; d = 0 means a scalar.
func tt(d int) hm.Type {
	a := hm.TypeVariable('a')
	if d == 0 {
		return a
	}
	return G.TensorType{Dims: d, Of: a}
}

// fnType builds the Type of an op from the dimensions of its inputs and of its output.
func fnType(dims ...int) hm.Type {
	ts := make([]hm.Type, len(dims))
	for i, d := range dims {
		ts[i] = tt(d)
	}
	return hm.NewFnType(ts...)
}

// shapeOf returns the i-th input shape given to InferShape.
func shapeOf(in []G.DimSizer, i int) (tensor.Shape, error) {
	if i >= len(in) {
		return nil, fmt.Errorf("ops: expected at least %d inputs, got %d", i+1, len(in))
	}
	s, ok := in[i].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("ops: input %d has no concrete shape", i)
	}
	return s, nil
}

// packedShape is the shape of a gradient op's output that packs the gradients of its first k
// inputs one after the other: [Σ sizes].
func packedShape(in []G.DimSizer, k int) (tensor.Shape, error) {
	n := 0
	for i := range k {
		s, err := shapeOf(in, i)
		if err != nil {
			return nil, err
		}
		n += s.TotalSize()
	}
	return tensor.Shape{n}, nil
}

// buffer is an op-owned output tensor that is reused while its dtype and shape stay the same.
type buffer struct{ t *tensor.Dense }

func (b *buffer) get(dt tensor.Dtype, shape ...int) *tensor.Dense {
	if b.t == nil || b.t.Dtype() != dt || !b.t.Shape().Eq(tensor.Shape(shape)) {
		b.t = tensor.New(tensor.Of(dt), tensor.WithShape(shape...))
	}
	return b.t
}

// scratch is op-owned working memory of either float type.
type scratch[F Float] struct{ s []F }

func (s *scratch[F]) get(n int) []F {
	if cap(s.s) < n {
		s.s = make([]F, n)
	}
	return s.s[:n]
}

func dense(v G.Value) (*tensor.Dense, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("ops: expected a *tensor.Dense, got %T", v)
	}
	return d, nil
}

// scalar reads a scalar value (the seed gradient of a loss).
func scalar(v G.Value) (float64, error) {
	switch s := v.(type) {
	case *G.F64:
		return float64(*s), nil
	case *G.F32:
		return float64(*s), nil
	case *tensor.Dense:
		switch d := s.Data().(type) {
		case []float64:
			if len(d) == 1 {
				return d[0], nil
			}
		case []float32:
			if len(d) == 1 {
				return float64(d[0]), nil
			}
		case float64:
			return d, nil
		case float32:
			return float64(d), nil
		}
	}
	return 0, fmt.Errorf("ops: expected a scalar, got %T", v)
}

func scalarValue(dt tensor.Dtype, x float64) (G.Value, error) {
	switch dt {
	case tensor.Float64:
		return G.NewF64(x), nil
	case tensor.Float32:
		return G.NewF32(float32(x)), nil
	}
	return nil, fmt.Errorf("ops: unsupported dtype %v (use float32 or float64)", dt)
}

// dtypeOf checks that every input is a float32 or float64 dense tensor of one dtype.
func dtypeOf(vs ...G.Value) (tensor.Dtype, error) {
	var dt tensor.Dtype
	for i, v := range vs {
		d, err := dense(v)
		if err != nil {
			return dt, err
		}
		if i == 0 {
			dt = d.Dtype()
			if dt != tensor.Float32 && dt != tensor.Float64 {
				return dt, fmt.Errorf("ops: unsupported dtype %v (use float32 or float64)", dt)
			}
		} else if d.Dtype() != dt {
			return dt, fmt.Errorf("ops: mixed dtypes %v and %v", dt, d.Dtype())
		}
	}
	return dt, nil
}

func sl[F Float](v G.Value) []F {
	if s, ok := Slice[F](v); ok {
		return s
	}
	return v.Data().([]F)
}

// Slice returns the data of v, a non-scalar *tensor.Dense of F values, without the allocations of
// its Data method (a reflect value and an interface per call: half of a training step's
// allocations went to them); ok is false for any other value.
func Slice[F Float](v G.Value) (s []F, ok bool) {
	d, dense := v.(*tensor.Dense)
	if !dense || d.IsScalar() {
		return nil, false
	}
	var z F
	switch any(z).(type) {
	case float32:
		if d.Dtype() != tensor.Float32 {
			return nil, false
		}
		x := d.Float32s()
		return *(*[]F)(unsafe.Pointer(&x)), true
	default:
		if d.Dtype() != tensor.Float64 {
			return nil, false
		}
		x := d.Float64s()
		return *(*[]F)(unsafe.Pointer(&x)), true
	}
}

// workers is the number of goroutines a kernel may split its rows over: GOMAXPROCS, shared out
// among the jobs that declared themselves with JobStarted (concurrent runs of a grid), so that
// two runs on two cores each work on one instead of both splitting every op over both. It can
// change between calls: a caller that sizes per-worker memory reads it once and passes it to
// parallelW.
func workers() int {
	w := runtime.GOMAXPROCS(0)
	if j := int(jobs.Load()); j > 1 {
		w = max(1, w/j)
	}
	return w
}

var jobs atomic.Int32

// JobStarted declares one more independent job (a training run of a grid) running
// concurrently in this process, and JobFinished its end: while j jobs run, each op splits its
// work over GOMAXPROCS/j workers (at least one). Results do not depend on the number of workers,
// so this only changes the speed.
func JobStarted() { jobs.Add(1) }

// JobFinished undoes one JobStarted.
func JobFinished() { jobs.Add(-1) }

// parallel runs fn over [0, n) in contiguous chunks, one per worker (numbered from 0, fewer
// than workers()), when the work is large enough to pay for the goroutines. Chunks only ever
// split independent items, so the result does not depend on the number of workers.
func parallel(n, costPerItem int, fn func(worker, lo, hi int)) {
	parallelW(workers(), n, costPerItem, fn)
}

// parallelW is parallel over at most w chunks.
func parallelW(w, n, costPerItem int, fn func(worker, lo, hi int)) {
	if w < 2 || n < 2 || n*costPerItem < 1<<15 {
		fn(0, 0, n)
		return
	}
	if w > n {
		w = n
	}
	chunk := (n + w - 1) / w
	fanout((n+chunk-1)/chunk, func(i int) { fn(i, i*chunk, min((i+1)*chunk, n)) })
}

// ErrHashCollision reports two different nodes of one graph with equal hash codes, which
// Gorgonia v0.9.18 takes for one node (see model.Build, which builds such a graph again).
var ErrHashCollision = errors.New("two different nodes of the graph have the same hash code")

// apply wraps G.ApplyOp with the op's name in the error. ApplyOp returns an existing node
// instead of a new one when their hash codes, their ops' hash codes, arity, type and shape
// agree (ExprGraph.AddNode): for two different ops of ours that is a hash collision, refused
// with ErrHashCollision rather than letting the graph compute the other op's value.
func apply(op G.Op, children ...*G.Node) (*G.Node, error) {
	n, err := G.ApplyOp(op, children...)
	if err != nil {
		return nil, fmt.Errorf("ops: building %v: %w", op, err)
	}
	if n.Op() != op {
		return nil, fmt.Errorf("ops: building %v: %w (Gorgonia returned the node of %v)", op, ErrHashCollision, n.Op())
	}
	return n, nil
}

// addInto writes a[i] + b[i] to y[i] (a and b at least as long as y; y may alias a or b),
// eight float32 at a time when the vector kernels are on. Every element is one addition, so the
// result is the same either way.
func addInto[F Float](y, a, b []F) {
	a, b = a[:len(y)], b[:len(y)]
	i := 0
	if y32, ok := any(y).([]float32); ok && useKernels {
		addv8(y32, any(a).([]float32), any(b).([]float32))
		i = len(y) &^ 7
	}
	for ; i < len(y); i++ {
		y[i] = a[i] + b[i]
	}
}
