package ops

import (
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestEngineAdd: Engine.Add gives the standard engine's result bit for bit, on the fast path
// (reuse, unsafe) and on the paths it hands back (increment, a new result, views, other dtypes).
func TestEngineAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	mk := func(dt tensor.Dtype, shape ...int) *tensor.Dense {
		x := tensor.New(tensor.Of(dt), tensor.WithShape(shape...), tensor.WithEngine(Engine{}))
		switch d := x.Data().(type) {
		case []float32:
			for i := range d {
				d[i] = float32(rng.NormFloat64())
			}
		case []float64:
			for i := range d {
				d[i] = rng.NormFloat64()
			}
		case []int:
			for i := range d {
				d[i] = rng.IntN(100)
			}
		}
		return x
	}
	same := func(name string, got, want tensor.Tensor) {
		t.Helper()
		if !got.Shape().Eq(want.Shape()) {
			t.Fatalf("%s: shape %v, want %v", name, got.Shape(), want.Shape())
		}
		g, w := got.(*tensor.Dense), want.(*tensor.Dense)
		for i := 0; i < g.Size(); i++ {
			if gv, wv := g.Get(i), w.Get(i); gv != wv {
				t.Fatalf("%s: element %d = %v, want %v", name, i, gv, wv)
			}
		}
	}
	std := tensor.StdEng{}
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64, tensor.Int} {
		for _, n := range []int{1, 13, 2048} {
			a, b := mk(dt, n, 3), mk(dt, n, 3)
			want, err := std.Add(a.Clone().(*tensor.Dense), b)
			if err != nil {
				t.Fatal(err)
			}
			reuse := mk(dt, n, 3)
			isFloat := dt != tensor.Int
			if fast := fastAddDest(a, b, []tensor.FuncOpt{tensor.WithReuse(reuse)}) != nil; fast != isFloat {
				t.Fatalf("%v: fast path with reuse = %v", dt, fast)
			}
			if fastAddDest(a, b, nil) != nil || fastAddDest(a, b, []tensor.FuncOpt{tensor.WithIncr(reuse)}) != nil {
				t.Fatalf("%v: fast path taken for a new result or an increment", dt)
			}
			if fast := fastAddDest(a, b, []tensor.FuncOpt{tensor.UseUnsafe()}) != nil; fast != isFloat {
				t.Fatalf("%v: fast path unsafe = %v", dt, fast)
			}
			got, err := tensor.Add(a, b, tensor.WithReuse(reuse))
			if err != nil {
				t.Fatal(err)
			}
			if got != tensor.Tensor(reuse) {
				t.Fatalf("%v n=%d: result is not the reuse tensor", dt, n)
			}
			same("reuse", got, want)
			got, err = tensor.Add(a, b) // a new tensor (standard engine)
			if err != nil {
				t.Fatal(err)
			}
			same("new", got, want)
			inc := mk(dt, n, 3)
			wantInc, err := std.Add(a, b, tensor.WithIncr(inc.Clone().(*tensor.Dense)))
			if err != nil {
				t.Fatal(err)
			}
			gotInc, err := tensor.Add(a, b, tensor.WithIncr(inc))
			if err != nil {
				t.Fatal(err)
			}
			same("incr", gotInc, wantInc)
			ac := a.Clone().(*tensor.Dense)
			got, err = tensor.Add(ac, b, tensor.UseUnsafe())
			if err != nil {
				t.Fatal(err)
			}
			if got != tensor.Tensor(ac) {
				t.Fatalf("%v n=%d: unsafe result is not a", dt, n)
			}
			same("unsafe", got, want)
			// b aliased to the destination
			bc := b.Clone().(*tensor.Dense)
			got, err = tensor.Add(a, bc, tensor.WithReuse(bc))
			if err != nil {
				t.Fatal(err)
			}
			same("reuse=b", got, want)
		}
	}
	// a view (a slice of rows) goes to the standard engine
	a, b := mk(tensor.Float32, 6, 4), mk(tensor.Float32, 3, 4)
	v, err := a.Slice(G.S(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if fastAddDest(v, b, []tensor.FuncOpt{tensor.UseUnsafe()}) != nil {
		t.Fatal("fast path taken for a view")
	}
	got, err := tensor.Add(v, b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := std.Add(v.(*tensor.Dense).Materialize().(*tensor.Dense), b)
	if err != nil {
		t.Fatal(err)
	}
	same("view", got, want)
}

// TestEngineInGraph: in a tape machine with Engine, the gradient of a node used by three ops
// (summed by Gorgonia's built-in Add) matches the standard engine's.
func TestEngineInGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 9))
	x := randn(rng, 8*5, 1)
	grad := func(opts ...G.VMOpt) []float64 {
		g := G.NewGraph()
		xn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(8, 5), G.WithValue(tensor.New(tensor.WithShape(8, 5), tensor.WithBacking(append([]float64(nil), x...)))), G.WithName("x"))
		a, _ := GELU(xn)
		b, _ := Add(xn, a)
		c, _ := Add(b, xn)
		loss := G.Must(G.Sum(G.Must(G.HadamardProd(c, c))))
		gs, err := G.Grad(loss, xn)
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g, opts...)
		defer vm.Close()
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		return append([]float64(nil), gs[0].Value().Data().([]float64)...)
	}
	want, got := grad(), grad(G.WithEngine(Engine{}))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("gradient[%d] = %v with Engine, %v without", i, got[i], want[i])
		}
	}
}

// TestSliceIsData: Slice gives the slice Data gives (same first element's address, length and
// capacity) for float32 and float64 tensors, and refuses scalars, other dtypes and other values.
func TestSliceIsData(t *testing.T) {
	f32 := tensor.New(tensor.WithShape(3, 5), tensor.WithBacking(make([]float32, 15)))
	f64 := tensor.New(tensor.WithShape(7), tensor.WithBacking(make([]float64, 7)))
	s32, ok32 := Slice[float32](f32)
	s64, ok64 := Slice[float64](f64)
	d32, d64 := f32.Data().([]float32), f64.Data().([]float64)
	if !ok32 || &s32[0] != &d32[0] || len(s32) != len(d32) || cap(s32) != cap(d32) {
		t.Errorf("Slice[float32]: %p len %d cap %d, Data: %p len %d cap %d", s32, len(s32), cap(s32), d32, len(d32), cap(d32))
	}
	if !ok64 || &s64[0] != &d64[0] || len(s64) != len(d64) || cap(s64) != cap(d64) {
		t.Errorf("Slice[float64]: %p len %d cap %d, Data: %p len %d cap %d", s64, len(s64), cap(s64), d64, len(d64), cap(d64))
	}
	if _, ok := Slice[float64](f32); ok {
		t.Error("Slice[float64] took a float32 tensor")
	}
	if _, ok := Slice[float32](tensor.New(tensor.FromScalar(float32(2)))); ok {
		t.Error("Slice took a scalar")
	}
	if _, ok := Slice[float32](G.NewF32(2)); ok {
		t.Error("Slice took a G.F32")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = Slice[float32](f32) }); n != 0 {
		t.Errorf("Slice allocates %v times a call", n)
	}
}
