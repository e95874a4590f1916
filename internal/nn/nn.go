// Package nn holds the small pieces the position, attention and model packages share: trainable
// parameters (plain tensors shared by every graph that binds them), initialisers, and a graph
// builder that binds each parameter once and names every node uniquely (Gorgonia merges nodes
// and constants with equal names).
package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Param is a trainable tensor. The same *tensor.Dense is bound into the graph of every sequence
// length, so an optimiser that updates it in place updates every graph at once.
type Param struct {
	Name  string
	Value *tensor.Dense
}

// Dtype parses "float32" or "float64".
func Dtype(name string) (tensor.Dtype, error) {
	switch name {
	case "float32", "":
		return tensor.Float32, nil
	case "float64":
		return tensor.Float64, nil
	}
	return tensor.Float32, fmt.Errorf("unknown dtype %q (use float32 or float64)", name)
}

// FromFloat64 makes a tensor of dtype dt with the given shape from float64 values.
func FromFloat64(dt tensor.Dtype, data []float64, shape ...int) *tensor.Dense {
	switch dt {
	case tensor.Float32:
		d := make([]float32, len(data))
		for i, v := range data {
			d[i] = float32(v)
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
	default:
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), data...)))
	}
}

// Float64s returns a copy of a float32 or float64 tensor's values as float64.
func Float64s(t *tensor.Dense) []float64 {
	switch d := t.Data().(type) {
	case []float64:
		return append([]float64(nil), d...)
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out
	}
	return nil
}

// Normal is a tensor of N(0, std²) values drawn from rng.
func Normal(dt tensor.Dtype, rng *rand.Rand, std float64, shape ...int) *tensor.Dense {
	return filled(dt, func() float64 { return pmath.NormFloat64(rng) * std }, shape) // amd64's draws on every CPU
}

// Full is a tensor with every value v.
func Full(dt tensor.Dtype, v float64, shape ...int) *tensor.Dense {
	return filled(dt, func() float64 { return v }, shape)
}

// filled is a tensor of the given shape whose values, in order, are next's.
func filled(dt tensor.Dtype, next func() float64, shape []int) *tensor.Dense {
	d := make([]float64, tensor.Shape(shape).TotalSize())
	for i := range d {
		d[i] = next()
	}
	return FromFloat64(dt, d, shape...)
}

// Builder builds one graph.
type Builder struct {
	G     *G.ExprGraph
	Dtype tensor.Dtype
	names map[string]bool
	bound map[string]*G.Node
}

// NewBuilder starts a graph of the given dtype.
func NewBuilder(dt tensor.Dtype) *Builder {
	return &Builder{G: G.NewGraph(), Dtype: dt, names: map[string]bool{}, bound: map[string]*G.Node{}}
}

func (b *Builder) claim(name string) error {
	if b.names[name] {
		return fmt.Errorf("nn: node name %q used twice in one graph", name)
	}
	b.names[name] = true
	return nil
}

// Param binds p into the graph (once: a second call returns the same node).
func (b *Builder) Param(p Param) (*G.Node, error) {
	if n, ok := b.bound[p.Name]; ok {
		return n, nil
	}
	if p.Value.Dtype() != b.Dtype {
		return nil, fmt.Errorf("nn: parameter %s is %v in a %v graph", p.Name, p.Value.Dtype(), b.Dtype)
	}
	if err := b.claim(p.Name); err != nil {
		return nil, err
	}
	s := p.Value.Shape()
	n := G.NewTensor(b.G, b.Dtype, len(s), G.WithShape(s...), G.WithValue(p.Value), G.WithName(p.Name))
	b.bound[p.Name] = n
	return n, nil
}

// Input adds an input node with its own zero-filled value of the given shape.
func (b *Builder) Input(name string, shape ...int) (*G.Node, error) {
	return b.Const(name, tensor.New(tensor.Of(b.Dtype), tensor.WithShape(shape...)))
}

// Const adds a non-trainable input node bound to t (a table, a mask, a batch's tokens).
func (b *Builder) Const(name string, t *tensor.Dense) (*G.Node, error) {
	if err := b.claim(name); err != nil {
		return nil, err
	}
	if t.Dtype() != b.Dtype {
		return nil, fmt.Errorf("nn: input %s is %v in a %v graph", name, t.Dtype(), b.Dtype)
	}
	s := t.Shape()
	return G.NewTensor(b.G, b.Dtype, len(s), G.WithShape(s...), G.WithValue(t), G.WithName(name)), nil
}
