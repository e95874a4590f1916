package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// collisionCache keeps the pair of name indices found for each type-and-shape prefix.
var collisionCache = map[string][2]int{}

// collidingInputs adds to g two [1, 2] input nodes with different names but equal hash codes:
// Gorgonia hashes an input node as FNV-1a of its type and shape, its name and its number of
// children (node.go, WriteHash), so a birthday search over names finds a pair in about 10⁵ tries.
func collidingInputs(t testing.TB, g *G.ExprGraph, dt tensor.Dtype) (a, b *G.Node) {
	t.Helper()
	probe := G.NewMatrix(g, dt, G.WithShape(1, 2), G.WithName("probe"), G.WithValue(tensor.New(tensor.Of(dt), tensor.WithShape(1, 2))))
	prefix := fmt.Sprintf("%v%v", probe.Type(), probe.Shape())
	const offset, prime = 2166136261, 16777619 // FNV-1a, 32 bits
	h0 := uint32(offset)
	for _, c := range []byte(prefix) {
		h0 = (h0 ^ uint32(c)) * prime
	}
	name := func(i int) string { return "collide" + strconv.Itoa(i) }
	mk := func(name string, v float64) *G.Node {
		return G.NewMatrix(g, dt, G.WithShape(1, 2), G.WithName(name), G.WithValue(nn.Full(dt, v, 1, 2)))
	}
	check := func(a, b *G.Node) {
		if a.Hashcode() != b.Hashcode() {
			t.Fatalf("inputs %q and %q: hash codes %08x and %08x, want equal (Gorgonia's node hash changed?)", a.Name(), b.Name(), a.Hashcode(), b.Hashcode())
		}
	}
	if p, ok := collisionCache[prefix]; ok {
		a, b = mk(name(p[0]), 1), mk(name(p[1]), 10)
		check(a, b)
		return a, b
	}
	seen := map[uint32]int{}
	var buf []byte
	for i := 0; i < 1<<22; i++ {
		buf = strconv.AppendInt(append(buf[:0], "collide"...), int64(i), 10)
		h := h0
		for _, c := range append(buf, 0) {
			h = (h ^ uint32(c)) * prime
		}
		if j, ok := seen[h]; ok {
			collisionCache[prefix] = [2]int{j, i}
			a, b = mk(name(j), 1), mk(name(i), 10)
			check(a, b)
			return a, b
		}
		seen[h] = i
	}
	t.Fatal("no colliding names found")
	return nil, nil
}

// TestGorgoniaTakesCollidingNodesForOne shows the Gorgonia fault Build works around: two
// different inputs whose hash codes collide are compiled as one value (Compile's value numbering
// keys nodes by hash code alone), so x + y computes x + x. HashCollision finds the pair.
func TestGorgoniaTakesCollidingNodesForOne(t *testing.T) {
	g := G.NewGraph()
	x, y := collidingInputs(t, g, tensor.Float64)
	if a, b := HashCollision(g); a == nil || b == nil {
		t.Fatal("HashCollision found no collision")
	}
	sum, err := ops.Add(x, y)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	got := sum.Value().Data().([]float64)
	if got[0] == 11 {
		t.Fatalf("x + y = %v, as it should be: Gorgonia no longer merges colliding nodes (update Build's comment and model/README notes)", got)
	}
	if got[0] != 2 && got[0] != 20 {
		t.Fatalf("x + y = %v, want the sum of one input with itself (2 or 20)", got)
	}
	// Without the collision the same graph is right.
	g2 := G.NewGraph()
	x2 := G.NewMatrix(g2, tensor.Float64, G.WithShape(1, 2), G.WithName("x"), G.WithValue(nn.Full(tensor.Float64, 1, 1, 2)))
	y2 := G.NewMatrix(g2, tensor.Float64, G.WithShape(1, 2), G.WithName("y"), G.WithValue(nn.Full(tensor.Float64, 10, 1, 2)))
	if a, _ := HashCollision(g2); a != nil {
		t.Fatal("HashCollision reports a collision in a graph without one")
	}
	sum2, err := ops.Add(x2, y2)
	if err != nil {
		t.Fatal(err)
	}
	vm2 := G.NewTapeMachine(g2)
	defer vm2.Close()
	if err := vm2.RunAll(); err != nil {
		t.Fatal(err)
	}
	if got := sum2.Value().Data().([]float64); got[0] != 11 {
		t.Fatalf("x + y = %v without a collision, want 11", got)
	}
}

// TestBuildRebuildsOnHashCollision: a graph whose first build has colliding nodes is built again
// (new ops, new hash codes) and computes the same loss and gradients, bit for bit, as a graph
// built without one; a collision in every attempt is an error naming it, not a wrong graph.
func TestBuildRebuildsOnHashCollision(t *testing.T) {
	m := tinyVariant(t, variant{name: "sinusoidal_bidirectional", spec: position.Spec{Kind: "sinusoidal"}, bidirectional: true}, "float32")
	in := randomInput(rand.New(rand.NewPCG(1, 2)), 2, 5, 7)
	run := func(g *Graph) []float64 {
		t.Helper()
		loss, err := g.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		out := []float64{loss}
		for _, gr := range g.Grads() {
			out = append(out, nn.Float64s(gr)...)
		}
		return out
	}
	plain, err := m.Build(2, 5, BuildOptions{Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	want := run(plain)
	plain.Close()

	var attempts []int
	buildHook = func(g *G.ExprGraph, attempt int) {
		attempts = append(attempts, attempt)
		if attempt == 1 {
			collidingInputs(t, g, tensor.Float32)
		}
	}
	defer func() { buildHook = nil }()
	g, err := m.Build(2, 5, BuildOptions{Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if fmt.Sprint(attempts) != "[1 2]" {
		t.Fatalf("build attempts %v, want [1 2]", attempts)
	}
	got := run(g)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("value %d of the rebuilt graph is %v, want %v", i, got[i], want[i])
		}
	}

	buildHook = func(g *G.ExprGraph, _ int) { collidingInputs(t, g, tensor.Float32) }
	if _, err := m.Build(2, 5, BuildOptions{Grad: true}); !errors.Is(err, ops.ErrHashCollision) {
		t.Fatalf("a collision in every attempt: err = %v, want ops.ErrHashCollision", err)
	}
}
