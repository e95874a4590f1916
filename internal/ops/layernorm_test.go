package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLayerNormVectorBits: the float32 vector loops (forward, dx, dgamma) give the scalar
// loops' results bit for bit, for row lengths around the vector width, and the statistics
// kept by the forward pass give the same gradients as recomputed ones.
func TestLayerNormVectorBits(t *testing.T) {
	if !useKernels {
		t.Skip("no vector kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(8, 2))
	f32 := func(n int, scale, off float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*scale + off)
		}
		return x
	}
	type result struct{ y, st, dx, dg []float32 }
	run := func(x, gamma, beta, g []float32, n, d int, kept bool) result {
		var r result
		r.y, r.st = make([]float32, n*d), make([]float32, 2*n)
		layerNormFwd(x, gamma, beta, r.y, r.st, n, d)
		var st []float32
		if kept {
			st = r.st
		}
		var sc scratch[float32]
		r.dx, r.dg = make([]float32, n*d), make([]float32, d)
		layerNormBwd(x, gamma, g, r.dx, st, n, d, false, &sc)
		layerNormBwd(x, gamma, g, r.dg, st, n, d, true, &sc)
		return r
	}
	same := func(what string, d int, a, b []float32) {
		t.Helper()
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("d=%d %s[%d]: %v vs %v", d, what, i, a[i], b[i])
			}
		}
	}
	for _, d := range []int{1, 7, 8, 9, 16, 31, 64, 65, 256} {
		n := 1100 // enough rows to be split over the workers
		x, gamma, beta, g := f32(n*d, 2, 3), f32(d, 1, 1), f32(d, 1, 0), f32(n*d, 1, 0)
		vec := run(x, gamma, beta, g, n, d, true)
		// The scalar loops of layernorm.go, on the same row statistics.
		want := result{y: make([]float32, n*d), dx: make([]float32, n*d), dg: make([]float32, d)}
		for r := 0; r < n; r++ {
			mean, rstd := vec.st[2*r], vec.st[2*r+1]
			if m, s := rowStats(x[r*d : (r+1)*d]); m != mean || s != rstd {
				t.Fatalf("d=%d row %d: kept statistics %v, %v; recomputed %v, %v", d, r, mean, rstd, m, s)
			}
			var sg, sgx float32
			for j := 0; j < d; j++ {
				v := x[r*d+j]
				want.y[r*d+j] = float32((v-mean)*rstd*gamma[j]) + beta[j]
				want.dg[j] += float32(g[r*d+j] * (v - mean) * rstd)
				gy := float32(g[r*d+j] * gamma[j])
				sg += gy
				sgx += float32(float32(gy*(v-mean)) * rstd)
			}
			sg /= float32(d)
			sgx /= float32(d)
			for j := 0; j < d; j++ {
				xhat := (x[r*d+j] - mean) * rstd
				want.dx[r*d+j] = rstd * (float32(g[r*d+j]*gamma[j]) - sg - float32(xhat*sgx))
			}
		}
		same("y", d, vec.y, want.y)
		same("dx", d, vec.dx, want.dx)
		same("dgamma", d, vec.dg, want.dg)
		var one, three result // the same on one worker and on three (dgamma splits columns)
		withWorkers(t, 1, func() { one = run(x, gamma, beta, g, n, d, true) })
		withWorkers(t, 3, func() { three = run(x, gamma, beta, g, n, d, true) })
		same("dgamma (1 vs 3 workers)", d, one.dg, three.dg)
		same("dx (1 vs 3 workers)", d, one.dx, three.dx)
		same("y (1 vs 3 workers)", d, one.y, three.y)
		recomputed := run(x, gamma, beta, g, n, d, false)
		same("dx (kept vs recomputed statistics)", d, vec.dx, recomputed.dx)
		same("dgamma (kept vs recomputed statistics)", d, vec.dg, recomputed.dg)
	}
}

// TestLayerNormKeptStats: the gradient ops use the forward's statistics only for the x they
// were computed from.
func TestLayerNormKeptStats(t *testing.T) {
	op := &layerNormOp{keep: true}
	x, y := make([]float32, 6), make([]float32, 6)
	st := op.st32.get(4)
	op.statsOf, op.statsShape = &x[0], [2]int{2, 3}
	if got := keptStats(op, x, 2, 3); len(got) != 4 || &got[0] != &st[0] {
		t.Fatal("statistics of the same x not used")
	}
	if keptStats(op, y, 2, 3) != nil {
		t.Fatal("statistics of another x used")
	}
	if keptStats(op, x, 3, 2) != nil {
		t.Fatal("statistics of another shape used")
	}
	if keptStats(op, []float64{1, 2, 3, 4, 5, 6}, 2, 3) != nil {
		t.Fatal("statistics of another dtype used")
	}
	if keptStats[float32](nil, x, 2, 3) != nil {
		t.Fatal("statistics without a forward op")
	}
}

// TestLNRowSumsBits: the layer-norm gradient's row sums taken four rows at a time have the bits
// of the one-row loop (float32 and float64), and so do eight rows in lanes (lnRowSums8, float32
// where the CPU has lnSumsT) at widths with and without a tail past a multiple of 8.
func TestLNRowSumsBits(t *testing.T) {
	testLNRowSums[float32](t)
	testLNRowSums[float64](t)
	if lnSumsT == nil {
		return
	}
	rng := rand.New(rand.NewPCG(25, 26))
	for _, d := range []int{1, 7, 8, 37, 128, 512} {
		const n = 11
		x, g, gamma, st := randSlice[float32](rng, n*d), randSlice[float32](rng, n*d), randSlice[float32](rng, d), randSlice[float32](rng, 2*n)
		buf := make([]float32, 16*d+32)
		for r0 := 0; r0+8 <= n; r0++ {
			var eight, one [16]float32
			lnRowSums8(eight[:], x, g, gamma, st, r0, d, buf)
			for q := 0; q < 8; q++ {
				lnRowSums(one[2*q:], x, g, gamma, st, r0+q, 1, d)
			}
			sameBits(t, fmt.Sprintf("d=%d rows %d..%d eight at a time", d, r0, r0+7), eight[:], one[:])
		}
	}
}

func testLNRowSums[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const n, d = 9, 37
	x, g, gamma, st := randSlice[F](rng, n*d), randSlice[F](rng, n*d), randSlice[F](rng, d), randSlice[F](rng, 2*n)
	for r0 := 0; r0+4 <= n; r0++ {
		var four, one [8]F
		lnRowSums(four[:], x, g, gamma, st, r0, 4, d)
		for q := 0; q < 4; q++ {
			lnRowSums(one[2*q:], x, g, gamma, st, r0+q, 1, d)
		}
		for i := range four {
			if math.Float64bits(float64(four[i])) != math.Float64bits(float64(one[i])) {
				t.Fatalf("%T rows %d..%d: sum %d is %v four at a time, %v one at a time", F(0), r0, r0+3, i, four[i], one[i])
			}
		}
	}
}

// BenchmarkLayerNormGrad is the default model's layer-norm input gradient ([416, 128] float32,
// one step's batch), its row sums four rows at a time (rows4: lnSumsT off) and, where the CPU
// has lnSumsT, eight rows in lanes (rows8), in wall and CPU (cpu-ns/op) time; run it with
// -test.cpu 1.
func BenchmarkLayerNormGrad(b *testing.B) {
	const n, d = 416, 128
	rng := rand.New(rand.NewPCG(27, 28))
	x, gamma, beta, g := randSlice[float32](rng, n*d), randSlice[float32](rng, d), randSlice[float32](rng, d), randSlice[float32](rng, n*d)
	y, dx, st := make([]float32, n*d), make([]float32, n*d), make([]float32, 2*n)
	layerNormFwd(x, gamma, beta, y, st, n, d)
	var sc scratch[float32]
	kern := lnSumsT
	defer func() { lnSumsT = kern }()
	for _, v := range []string{"rows4", "rows8"} {
		if lnSumsT = nil; v == "rows8" {
			if lnSumsT = kern; kern == nil {
				continue
			}
		}
		b.Run(v, func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				layerNormBwd(x, gamma, g, dx, st, n, d, false, &sc)
			}
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
