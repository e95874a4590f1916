package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// naiveGemm is the reference: C = alpha·op(A)·op(B) + beta·C by a triple loop in float64.
func naiveGemm[F Float](tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				var av, bv F
				if tA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if tB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			old := float64(c[i*ldc+j])
			if beta == 0 {
				old = 0
			}
			c[i*ldc+j] = F(float64(alpha)*s + float64(beta)*old)
		}
	}
}

type gemmCase struct {
	tA, tB      bool
	m, n, k     int
	alpha, beta float64
	pad         int // extra leading-dimension padding (strided operands)
}

func gemmCases() []gemmCase {
	var cs []gemmCase
	shapes := [][3]int{{1, 1, 1}, {1, 17, 3}, {5, 1, 9}, {6, 16, 1}, {7, 17, 13}, {13, 33, 5}, {64, 64, 16},
		{64, 16, 64}, {12, 32, 300}, {130, 70, 257}, {2048 / 8, 64, 64}, {64, 256, 600}, {0, 4, 4}, {3, 5, 0}}
	for i, s := range shapes {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				ab := [][2]float64{{1, 0}, {0.5, 1}, {-1.5, 0.25}, {0, 2}}[i%4]
				cs = append(cs, gemmCase{tA, tB, s[0], s[1], s[2], ab[0], ab[1], (i % 3) * 3})
			}
		}
	}
	// The large products below are split over the workers.
	cs = append(cs, gemmCase{false, false, 300, 64, 256, 1, 0, 0}, gemmCase{true, false, 64, 300, 257, 1, 1, 1},
		gemmCase{false, true, 61, 333, 70, -1, 0.5, 2})
	return cs
}

func checkGemm[F Float](t *testing.T, kern microKernel[F], tol float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range gemmCases() {
		name := fmt.Sprintf("%T tA=%v tB=%v m=%d n=%d k=%d alpha=%v beta=%v pad=%d", F(0), c.tA, c.tB, c.m, c.n, c.k, c.alpha, c.beta, c.pad)
		ar, ac := c.m, c.k
		if c.tA {
			ar, ac = ac, ar
		}
		br, bc := c.k, c.n
		if c.tB {
			br, bc = bc, br
		}
		lda, ldb, ldc := ac+c.pad, bc+c.pad, c.n+c.pad
		gen := func(rows, ld int) []F {
			x := make([]F, max(rows*ld, 1))
			for i := range x {
				x[i] = F(rng.NormFloat64())
			}
			return x
		}
		a, b := gen(ar, lda), gen(br, ldb)
		c0 := gen(c.m, ldc)
		if c.beta == 0 {
			for i := range c0 {
				c0[i] = F(math.NaN()) // beta = 0 must ignore C, NaN included
			}
			for i := 0; i < c.m; i++ { // ... but keep the padding intact
				for j := c.n; j < ldc; j++ {
					c0[i*ldc+j] = 7
				}
			}
		}
		want, got := append([]F(nil), c0...), append([]F(nil), c0...)
		naiveGemm(c.tA, c.tB, c.m, c.n, c.k, F(c.alpha), a, lda, b, ldb, F(c.beta), want, ldc)
		gemmBlocked(kern, true, c.tA, c.tB, c.m, c.n, c.k, F(c.alpha), a, lda, b, ldb, F(c.beta), got, ldc)
		for i := 0; i < c.m; i++ {
			for j := 0; j < ldc; j++ {
				w, g := float64(want[i*ldc+j]), float64(got[i*ldc+j])
				if j >= c.n {
					if g != float64(c0[i*ldc+j]) && !(math.IsNaN(g) && math.IsNaN(float64(c0[i*ldc+j]))) {
						t.Fatalf("%s: wrote outside C at (%d,%d)", name, i, j)
					}
					continue
				}
				if math.IsNaN(g) || math.Abs(w-g) > tol*(1+math.Sqrt(float64(c.k))) {
					t.Fatalf("%s: C[%d,%d] = %v, want %v", name, i, j, g, w)
				}
			}
		}
	}
}

// TestGemmKernels checks the blocked multiply with this CPU's kernels, and with the portable Go
// kernel, against a triple loop over shapes with odd sizes, transposes, strides, alpha and beta.
func TestGemmKernels(t *testing.T) {
	if haveKernels {
		checkGemm(t, kernel32avx2, 1e-5)
		checkGemm(t, kernel64, 1e-12)
		if haveAVX512 {
			checkGemm(t, kernel32avx512, 1e-5)
			checkGemm(t, kernel32wide, 1e-5)
		} else {
			t.Log("no AVX-512 on this CPU: its kernel is not checked")
		}
	} else {
		t.Log("no assembly kernels on this CPU; checking the portable ones only")
	}
	checkGemm(t, microKernel[float32]{mr: 3, nr: 5, fn: goKernel[float32](3, 5)}, 1e-5)
	checkGemm(t, microKernel[float64]{mr: 4, nr: 4, fn: goKernel[float64](4, 4)}, 1e-12)
}

// TestGemmDispatch checks the gemm entry point (whatever backend it picked, for a small and a
// large product: the openblas build sends the large one to OpenBLAS, split over the workers).
func TestGemmDispatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][3]int{{37, 29, 41}, {300, 200, 50}, {20, 300, 100}} {
		m, n, k := s[0], s[1], s[2]
		a, b := make([]float32, m*k), make([]float32, n*k)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		want, got := make([]float32, m*n), make([]float32, m*n)
		naiveGemm(false, true, m, n, k, 2, a, k, b, k, 0, want, n)
		gemm(false, true, m, n, k, 2, a, k, b, k, 0, got, n)
		for i := range want {
			if math.Abs(float64(want[i]-got[i])) > 1e-4 {
				t.Fatalf("%v: C[%d] = %v, want %v", s, i, got[i], want[i])
			}
		}
	}
	t.Logf("backend: %s", Backend())
}

func BenchmarkGemm(b *testing.B) {
	// the reference model's shapes, then the research-scale model's (4096 tokens, d_model 256,
	// d_ff 1024): the q/k/v projection, the second MLP layer
	for _, s := range [][3]int{{2048, 64, 64}, {2048, 256, 64}, {2048, 64, 256}, {64, 256, 2048}, {64, 64, 16}, {256, 256, 256}, {4096, 768, 256}, {4096, 256, 1024}} {
		m, n, k := s[0], s[1], s[2]
		x, y, z := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
		for i := range x {
			x[i] = 1
		}
		for i := range y {
			y[i] = 1
		}
		b.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				gemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n)
			}
			b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkGemmStep is the research-scale training step's products (4096 tokens, d_model 256,
// d_ff 1024) as the step calls them, beside the 2048³ peak (ops.SgemmPeak's product) in the
// same run: the forward products (x·W, NN), the input gradients (g·Wᵀ, NT) and the weight
// gradients with their bias sums (xᵀ·g, TN, gemmTNSums). GFLOP/s counts 2·m·n·k per wall second,
// GFLOP/cpu-s per CPU second of the process (the workers' sum: at most the peak per core times
// the workers).
func BenchmarkGemmStep(b *testing.B) {
	type shape struct {
		name    string
		tA, tB  bool
		m, n, k int
		sums    bool
	}
	shapes := []shape{{name: "peak2048", m: 2048, n: 2048, k: 2048}}
	for _, s := range [][3]int{{4096, 768, 256}, {4096, 256, 256}, {4096, 1024, 256}, {4096, 256, 1024}} {
		m, n, k := s[0], s[1], s[2]
		shapes = append(shapes,
			shape{name: fmt.Sprintf("NN_%dx%dx%d", m, n, k), m: m, n: n, k: k},
			shape{name: fmt.Sprintf("NT_%dx%dx%d", m, k, n), tB: true, m: m, n: k, k: n},             // dx = g·Wᵀ
			shape{name: fmt.Sprintf("TN_%dx%dx%d", k, n, m), tA: true, m: k, n: n, k: m, sums: true}) // dW = xᵀ·g
	}
	for _, s := range shapes {
		m, n, k := s.m, s.n, s.k
		x, y, z := make([]float32, m*k), make([]float32, k*n), make([]float32, (m+1)*n)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		for i := range y {
			y[i] = float32(i%5) - 2
		}
		lda, ldb := k, n
		if s.tA {
			lda = m
		}
		if s.tB {
			ldb = k
		}
		b.Run(s.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if s.sums {
					gemmTNSums(m, n, k, x, lda, y, ldb, z[:m*n], n, z[m*n:])
				} else {
					gemm(s.tA, s.tB, m, n, k, 1, x, lda, y, ldb, 0, z, n)
				}
			}
			flops := 2 * float64(m*n*k) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(flops/cpu.Seconds()/1e9, "GFLOP/cpu-s")
			}
		})
	}
}

// BenchmarkGemmSmall is the default experiment's dense products (configs/default.yaml: d_model
// 128, d_ff 512, batch 32 of length 13, so m = 416 rows) as one step calls them, on the calling
// goroutine (run it with -test.cpu 1, as a run of the grid gets one core): the forward products
// with their bias (x·W + b, gemmBias1), the input gradients (g·Wᵀ, NT) and the weight gradients
// with their bias sums (xᵀ·g, TN, gemmTNSums). The _m420 shapes have whole 6-row tiles: beside
// their m = 416 twins they show what the last, partial row of tiles costs.
func BenchmarkGemmSmall(b *testing.B) {
	type shape struct {
		name    string
		kind    byte // 'b' bias (NN), 't' NT, 's' TN with sums
		m, n, k int
	}
	var shapes []shape
	for _, m := range []int{416, 420} {
		sfx := ""
		if m != 416 {
			sfx = fmt.Sprintf("_m%d", m)
		}
		for _, s := range [][2]int{{128, 128}, {512, 128}, {128, 512}} { // n, k of x·W
			n, k := s[0], s[1]
			shapes = append(shapes,
				shape{fmt.Sprintf("NNbias_%dx%dx%d%s", m, n, k, sfx), 'b', m, n, k},
				shape{fmt.Sprintf("NT_%dx%dx%d%s", m, k, n, sfx), 't', m, k, n},
				shape{fmt.Sprintf("TN_%dx%dx%d%s", k, n, m, sfx), 's', k, n, m})
		}
	}
	for _, s := range shapes {
		m, n, k := s.m, s.n, s.k
		x, y, z := make([]float32, m*k), make([]float32, k*n), make([]float32, (m+1)*n)
		bias := make([]float32, n)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		for i := range y {
			y[i] = float32(i%5) - 2
		}
		b.Run(s.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				switch s.kind {
				case 'b':
					gemmBias1(m, n, k, x, k, y, n, bias, z, n)
				case 't':
					gemm1(false, true, m, n, k, 1, x, k, y, k, 0, z, n)
				default:
					gemmTNSums(m, n, k, x, m, y, n, z[:m*n], n, z[m*n:])
				}
			}
			flops := 2 * float64(m*n*k) * float64(b.N)
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(flops/cpu.Seconds()/1e9, "GFLOP/cpu-s")
			}
		})
	}
}

// BenchmarkAttention is the reference model's causal attention (B = 32, T = 64, 4 heads of 16),
// forward and forward + backward, in float32.
func BenchmarkAttention(b *testing.B) {
	const B, T, H, D = 32, 64, 4, 64
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func(n int) *tensor.Dense {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return tensor.New(tensor.WithShape(n/D, D), tensor.WithBacking(x))
	}
	q, k, v, dy := mk(B*T*D), mk(B*T*D), mk(B*T*D), mk(B*T*D)
	op := &attentionOp{base: newBase("Attention", 3), cfg: AttentionConfig{Batch: B, Len: T, Heads: H, Causal: true}, keepP: true}
	y := make([]float32, B*T*D)
	yt := tensor.New(tensor.WithShape(B*T, D), tensor.WithBacking(y))
	b.Run("forward", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, []G.Value{q, k, v}, y)
		}
	})
	bwd := &attentionGradOp{base: newBase("AttentionGrad", 5), fwd: op}
	out := make([]float32, 3*B*T*D)
	b.Run("backward", func(b *testing.B) {
		attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, []G.Value{q, k, v}, y)
		for i := 0; i < b.N; i++ {
			attnBwd(op, op.p32.s, &bwd.d32, &bwd.g32, &bwd.r32, &bwd.vt32, []G.Value{q, k, v, yt, dy}, out)
		}
	})
}

// BenchmarkGELU is the reference model's MLP activation, [2048, 256] float32, forward and
// gradient; where the CPU has them (AVX2), also the kernels that keep Φ(x) for the gradient.
func BenchmarkGELU(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, g, y := make([]float32, 2048*256), make([]float32, 2048*256), make([]float32, 2048*256)
	for i := range x {
		x[i], g[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	b.Run("forward", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			geluKernel(x, nil, y)
		}
	})
	b.Run("backward", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			geluKernel(x, g, y)
		}
	})
	if geluBwdPhi == nil {
		return
	}
	phi := make([]float32, len(x)) // the kernels that keep Φ(x) from the forward for the gradient
	b.Run("forward_phi", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			geluKernelPhi(x, nil, y, phi)
		}
	})
	b.Run("backward_phi", func(b *testing.B) {
		geluKernelPhi(x, nil, y, phi)
		for i := 0; i < b.N; i++ {
			geluKernelPhi(x, g, y, phi)
		}
	})
}

// BenchmarkCrossEntropy is the reference model's loss, [2048, 16] float32 logits: the loss alone
// and the loss with its gradient.
func BenchmarkCrossEntropy(b *testing.B) {
	const n, v = 2048, 16
	rng := rand.New(rand.NewPCG(1, 3))
	logits, targets, w, dl := make([]float32, n*v), make([]float32, n), make([]float32, n), make([]float32, n*v)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 3)
	}
	for i := range targets {
		targets[i], w[i] = float32(rng.IntN(v)), 1
	}
	b.Run("loss", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := crossEntropy(logits, targets, w, nil, 1, n, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gradient", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := crossEntropy(logits, targets, w, dl, 1, n, v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestKernelsReport: ops.Kernels names one of avx-512, avx2 and generic (on arm64: neon, and Go
// for the rest) for each op family, matching the kernels this process selected, and SgemmPeak
// measures a positive rate.
func TestKernelsReport(t *testing.T) {
	want, wantAdam := "generic", "generic"
	switch {
	case useKernels && runtime.GOARCH == "arm64":
		want, wantAdam = "neon", "go"
	case useKernels && haveAVX512:
		want, wantAdam = "avx-512", "avx-512"
	case useKernels:
		want, wantAdam = "avx2", "avx2"
	}
	fields := strings.Fields(Kernels())
	if len(fields) != 7 || fields[0] != "gemm_f32="+want || fields[5] != "adam="+wantAdam {
		t.Errorf("Kernels() = %q, want 7 families with gemm_f32 %s and adam %s", Kernels(), want, wantAdam)
	}
	for _, f := range fields {
		if _, v, _ := strings.Cut(f, "="); !slices.Contains([]string{"avx-512", "avx2", "generic", "neon", "go", "go-fma", "go-lanes"}, v) {
			t.Errorf("Kernels(): %q names no path", f)
		}
	}
	if p := SgemmPeak(64, 2); !(p > 0) || math.IsInf(p, 0) {
		t.Errorf("SgemmPeak(64, 2) = %v GFLOP/s", p)
	}
}
