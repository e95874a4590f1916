package ops

import (
	"math/rand/v2"
	"runtime"
	"testing"

	G "gorgonia.org/gorgonia"
)

func TestGradAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	checkOp(t, "Add", []input{
		{[]int{7, 5}, randn(rng, 35, 1), true},
		{[]int{7, 5}, randn(rng, 35, 1), true},
	}, func(in []*G.Node) (*G.Node, error) { return Add(in[0], in[1]) })
	// One input used twice, and the sum fed on: both gradients reach the same node.
	checkOp(t, "AddShared", []input{{[]int{3, 9}, randn(rng, 27, 1), true}},
		func(in []*G.Node) (*G.Node, error) {
			y, err := Add(in[0], in[0])
			if err != nil {
				return nil, err
			}
			return Add(y, in[0])
		})
}

func TestAddShapes(t *testing.T) {
	g := G.NewGraph()
	a := G.NewMatrix(g, G.Float64, G.WithShape(2, 3), G.WithName("a"))
	b := G.NewMatrix(g, G.Float64, G.WithShape(3, 2), G.WithName("b"))
	if _, err := Add(a, b); err == nil {
		t.Fatal("Add of [2 3] and [3 2]: no error")
	}
}

// TestAddVector checks the float32 vector add, the residual op's kernel and the column sum (bias
// gradient) against scalar loops, over lengths that leave every tail size, at several worker
// counts: every element is one addition (a column sum adds its rows in order), so they must agree
// bit for bit.
func TestAddVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, n := range []int{1, 7, 8, 9, 31, 64, 1000, 4099} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = a[i] + b[i]
		}
		got := append([]float32(nil), a...)
		addInto(got, got, b) // in place: y aliases a
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("addInto n=%d: [%d] = %g, want %g", n, i, got[i], want[i])
			}
		}
		for _, w := range []int{1, 2, 3} {
			withWorkers(t, w, func() {
				y := make([]float32, n)
				addKernel(a, b, y)
				for i := range y {
					if y[i] != want[i] {
						t.Fatalf("addKernel n=%d workers=%d: [%d] = %g, want %g", n, w, i, y[i], want[i])
					}
				}
			})
		}
	}
	for _, s := range [][2]int{{1, 1}, {5, 3}, {2048, 64}, {300, 257}, {3, 1000}} {
		rows, d := s[0], s[1]
		x := make([]float32, rows*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		want := make([]float32, d)
		for r := 0; r < rows; r++ {
			for j := 0; j < d; j++ {
				want[j] += x[r*d+j]
			}
		}
		for _, w := range []int{1, 2, 3} {
			withWorkers(t, w, func() {
				got := make([]float32, d)
				colSum(x, got, rows, d)
				for j := range got {
					if got[j] != want[j] {
						t.Fatalf("colSum %dx%d workers=%d: [%d] = %g, want %g", rows, d, w, j, got[j], want[j])
					}
				}
			})
		}
	}
}

// withWorkers runs f with GOMAXPROCS set to w.
func withWorkers(t *testing.T, w int, f func()) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(w))
	f()
}

// TestSubMulVector: the softmax-backward row kernel gives the scalar loop's bits.
func TestSubMulVector(t *testing.T) {
	if !useKernels {
		t.Skip("no vector kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{8, 9, 15, 16, 64, 100} {
		row, p := make([]float32, n), make([]float32, n)
		for i := range row {
			row[i], p[i] = float32(rng.NormFloat64()), float32(rng.Float64())
		}
		d := float32(rng.NormFloat64())
		got := append([]float32(nil), row...)
		subMul8(got, p, d)
		for j := 0; j < n; j++ {
			want := row[j]
			if j < n&^7 {
				want = p[j] * (row[j] - d)
			}
			if got[j] != want {
				t.Fatalf("n=%d: [%d] = %v, want %v", n, j, got[j], want)
			}
		}
	}
}

// TestJobsShareWorkers: concurrent jobs divide GOMAXPROCS between them, never below one.
func TestJobsShareWorkers(t *testing.T) {
	withWorkers(t, 4, func() {
		if w := workers(); w != 4 {
			t.Fatalf("no jobs: %d workers, want 4", w)
		}
		JobStarted()
		if w := workers(); w != 4 {
			t.Fatalf("one job: %d workers, want 4", w)
		}
		JobStarted()
		if w := workers(); w != 2 {
			t.Fatalf("two jobs: %d workers, want 2", w)
		}
		for i := 0; i < 3; i++ {
			JobStarted()
		}
		if w := workers(); w != 1 {
			t.Fatalf("five jobs: %d workers, want 1", w)
		}
		for i := 0; i < 5; i++ {
			JobFinished()
		}
		if w := workers(); w != 4 {
			t.Fatalf("all finished: %d workers, want 4", w)
		}
	})
}
