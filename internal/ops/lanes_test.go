package ops

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/posformer/posformer/internal/pmath"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/kernel_bits.golden from this CPU's kernels")

// fma32Big is a·b + c rounded once to float32, through exact big.Float arithmetic.
func fma32Big(a, b, c float32) float32 {
	p := new(big.Float).SetPrec(0).SetFloat64(float64(a))
	p.SetPrec(1000).Mul(p, new(big.Float).SetFloat64(float64(b)))
	p.Add(p, new(big.Float).SetFloat64(float64(c)))
	f, _ := p.Float32()
	return f
}

// TestFMA32Exact: fma32 rounds a·b + c once, as a fused multiply-add instruction does, on random
// operands of every magnitude, on sums whose float64 rounding would land on a float32 midpoint
// (where rounding twice goes wrong), and on exact cancellations.
func TestFMA32Exact(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 1))
	finite := func() float32 {
		for {
			f := math.Float32frombits(rng.Uint32())
			if !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
				return f
			}
		}
	}
	type tri struct{ a, b, c float32 }
	var cases []tri
	for range 20000 {
		cases = append(cases, tri{finite(), finite(), finite()})
		x := float32(rng.Float64()*2 - 1)
		cases = append(cases, tri{x, float32(rng.Float64()), float32(rng.Float64()*2 - 1)})
		cases = append(cases, tri{x, x, -float32(x * x)}) // the rounding error of x²
	}
	// c = 1 and a·b = 2⁻²⁴ + 2⁻⁶⁰·q: the exact sum lies just above the midpoint 1 + 2⁻²⁴, its
	// float64 rounding on it; fma32 must round up to 1 + 2⁻²³.
	for q := uint32(1); q < 200; q++ {
		a := float32(1 << 23) // a·b = 2²³·b; b = 2⁻⁴⁷·(1 + 2⁻²³·odd) has the tail
		b := math.Float32frombits(math.Float32bits(float32(math.Ldexp(1, -47))) + q)
		cases = append(cases, tri{a, b, 1}, tri{-a, b, -1}, tri{a, -b, 1})
	}
	for _, c := range cases {
		got, want := fma32(c.a, c.b, c.c), fma32Big(c.a, c.b, c.c)
		if math.Float32bits(got) != math.Float32bits(want) && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", c.a, c.b, c.c, got, want)
		}
	}
}

// fmaKernel is the micro-kernels' computation in Go: per element, acc = 0, then
// acc = fma(a, b, acc) over k in order (fma32 in float32, math.FMA in float64), stored as
// alpha·acc, fma(alpha, acc, C) (add) or fma(alpha, acc, bias) (bias not nil).
func fmaKernel[F Float](mr, nr int, k int, a *F, rs, cs int, b *F, bs int, c *F, ldc int, alpha F, add bool, bias *F) {
	var z F
	size := int(unsafe.Sizeof(z))
	at := func(p *F, off int) *F { return (*F)(unsafe.Add(unsafe.Pointer(p), off*size)) }
	fma := func(x, y, s F) F {
		if size == 4 {
			return F(fma32(float32(x), float32(y), float32(s)))
		}
		return F(math.FMA(float64(x), float64(y), float64(s)))
	}
	for i := range mr {
		for j := range nr {
			var s F
			for p := range k {
				s = fma(*at(a, i*rs+p*cs), *at(b, p*bs+j), s)
			}
			cp := at(c, i*ldc+j)
			switch {
			case bias != nil:
				*cp = fma(alpha, s, *at(bias, j))
			case add:
				*cp = fma(alpha, s, *cp)
			default:
				*cp = F(alpha * s)
			}
		}
	}
}

// TestMicroKernelFMAChain: the base micro-kernels (AVX2's 6×16 float32 and 6×8 float64 on amd64,
// NEON's on arm64), the float32 bias store included, compute each element of C as the chain of
// fused multiply-adds of fmaKernel, bit for bit, for A read by rows and by columns, k from 0 to
// beyond a block, alpha 1 and not, and C overwritten and added to.
func TestMicroKernelFMAChain(t *testing.T) {
	if !haveKernels {
		t.Skip("no assembly kernels on this CPU")
	}
	testFMAChain(t, kernel32avx2)
	testFMAChain(t, kernel64)
}

func testFMAChain[F Float](t *testing.T, kern microKernel[F]) {
	mr, nr := kern.mr, kern.nr
	rng := rand.New(rand.NewPCG(39, 2))
	vals := func(n int) []F {
		v := make([]F, n)
		for i := range v {
			v[i] = F(rng.Float64()*4 - 2)
		}
		return v
	}
	for _, k := range []int{0, 1, 2, 7, 16, 33, 256, 300} {
		for _, tA := range []bool{false, true} {
			for _, alpha := range []F{1, 0.37} {
				lda := k + 3
				rs, cs := lda, 1
				if tA {
					lda = mr + 5
					rs, cs = 1, lda
				}
				a := vals(max(mr, k) * (max(mr, k) + 5))
				bs := nr + 4
				b := vals(max(k, 1) * bs)
				bias := vals(nr)
				ldc := nr + 2
				c0 := vals(mr * ldc)
				for mode := range 3 {
					got, want := append([]F(nil), c0...), append([]F(nil), c0...)
					var bp *F
					switch mode {
					case 2:
						if kern.fnBias == nil {
							continue
						}
						bp = &bias[0]
						kern.fnBias(k, &a[0], rs, cs, &b[0], bs, &got[0], ldc, alpha, bp)
					default:
						kern.fn(k, &a[0], rs, cs, &b[0], bs, &got[0], ldc, alpha, mode == 1)
					}
					fmaKernel(mr, nr, k, &a[0], rs, cs, &b[0], bs, &want[0], ldc, alpha, mode == 1, bp)
					sameBits(t, fmt.Sprintf("%T %d×%d kernel, k=%d tA=%v alpha=%v mode %d", F(0), mr, nr, k, tA, alpha, mode), got, want)
				}
			}
		}
	}
}

// kernelBitsSuite runs the kernels' callers (gemm, the softmax, GELU, layer norm, the column sums,
// Adam, the float64 exponentials, amd64's math.Exp and math.Log) on fixed inputs and returns a SHA-256 of each result's bits.
func kernelBitsSuite() map[string]string {
	rng := rand.New(rand.NewPCG(39, 3))
	vals := func(n int, scale, off float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(float64((rng.Float64()*2-1)*scale) + off) // not fused on arm64 or GOAMD64=v3
		}
		return v
	}
	out := map[string]string{}
	put := func(name string, xs ...any) {
		h := sha256.New()
		for _, x := range xs {
			if err := binary.Write(h, binary.LittleEndian, x); err != nil {
				panic(err)
			}
		}
		out[name] = fmt.Sprintf("%x", h.Sum(nil))
	}
	// Products: whole and partial tiles, several blocks of k, transposed operands, alpha ≠ 1
	// with C added to, and a product split over the workers.
	for _, s := range []struct {
		m, n, k     int
		tA, tB      bool
		alpha, beta float32
	}{{64, 64, 16, false, true, 0.25, 0}, {37, 45, 300, false, false, 1, 0}, {100, 96, 513, true, false, 1, 1},
		{7, 33, 70, false, true, 0.5, 1}, {128, 256, 64, false, false, 1, 0}, {256, 64, 1024, true, false, 1, 0}} {
		lda, ldb := s.k, s.n
		if s.tA {
			lda = s.m
		}
		if s.tB {
			ldb = s.k
		}
		a, b, c := vals(s.m*s.k, 1, 0), vals(s.k*s.n, 1, 0), vals(s.m*s.n, 1, 0)
		gemm(s.tA, s.tB, s.m, s.n, s.k, s.alpha, a, lda, b, ldb, s.beta, c, s.n)
		put(fmt.Sprintf("gemm32 %dx%dx%d tA=%v tB=%v", s.m, s.n, s.k, s.tA, s.tB), c)
		a64, b64, c64 := make([]float64, len(a)), make([]float64, len(b)), make([]float64, len(c))
		for i := range a {
			a64[i] = float64(a[i])
		}
		for i := range b {
			b64[i] = float64(b[i])
		}
		gemm(s.tA, s.tB, s.m, s.n, s.k, float64(s.alpha), a64, lda, b64, ldb, float64(s.beta), c64, s.n)
		put(fmt.Sprintf("gemm64 %dx%dx%d tA=%v tB=%v", s.m, s.n, s.k, s.tA, s.tB), c64)
	}
	// A linear layer's product with its bias stored by the kernel, and a bias gradient summed
	// while B is packed.
	{
		m, n, k := 150, 48, 64
		a, b, bias := vals(m*k, 1, 0), vals(k*n, 1, 0), vals(n, 1, 0)
		c, sums := make([]float32, m*n), make([]float32, n)
		gemmSerial(kernel32, false, false, m, n, k, 1, a, k, b, n, c, n, false, nil, bias, nil)
		put("gemm32 bias", c)
		gemmSerial(kernel32, true, false, k, n, m, 1, a, k, c, n, b, n, false, nil, nil, sums)
		put("gemm32 colsums", b, sums)
	}
	for _, n := range []int{1, 2, 3, 5, 7, 8, 13, 64, 100, 256} {
		row := vals(n, 6, 0)
		softmaxRow(row)
		put(fmt.Sprintf("softmax %d", n), row)
	}
	xs := vals(4096, 8, 0)
	for x := float32(-16); x <= 16; x += 1.0 / 64 {
		xs = append(xs, x)
	}
	g, y := vals(len(xs), 1, 0), make([]float32, len(xs))
	geluKernel(xs, nil, y)
	put("gelu", y)
	geluKernel(xs, g, y)
	put("gelu grad", y)
	for i := 0; i+7 <= len(xs); i += 7 { // rows of 7: the scalar code only
		geluKernel(xs[i:i+7], nil, y[i:i+7])
	}
	put("gelu rows of 7", y)
	for i := 0; i+7 <= len(xs); i += 7 {
		geluKernel(xs[i:i+7], g[i:i+7], y[i:i+7])
	}
	put("gelu grad rows of 7", y)
	for _, d := range []int{8, 31, 64, 256} {
		n := 70
		x, gamma, beta, gy := vals(n*d, 2, 3), vals(d, 1, 1), vals(d, 1, 0), vals(n*d, 1, 0)
		yv, st, dx, dg := make([]float32, n*d), make([]float32, 2*n), make([]float32, n*d), make([]float32, d)
		layerNormFwd(x, gamma, beta, yv, st, n, d)
		var sc scratch[float32]
		layerNormBwd(x, gamma, gy, dx, st, n, d, false, &sc)
		layerNormBwd(x, gamma, gy, dg, st, n, d, true, &sc)
		cs := make([]float32, d)
		colSum(gy, cs, n, d)
		put(fmt.Sprintf("layernorm %d", d), yv, st, dx, dg, cs)
	}
	{
		n := 1003
		w, gw := vals(n, 1, 0), vals(n, 0.01, 0)
		m, v := make([]float64, n), make([]float64, n)
		c := AdamCoef{Beta1: 0.9, OneMinusBeta1: 0.1, Beta2: 0.999, OneMinusBeta2: 0.001, Scale: 0.37,
			BC1: 0.1, BC2: 0.001, Eps: 1e-8, WD: 0.1, LR: 3e-3}
		for range 3 {
			AdamVec32(w, gw, m, v, &c)
		}
		put("adam", w, m, v)
	}
	{
		n, v := 300, 11
		logits, targets, w := vals(n*v, 4, 0), make([]float32, n), make([]float32, n)
		for r := range targets {
			targets[r], w[r] = float32(r%v), float32(1+r%3)
		}
		dl := make([]float32, n*v)
		loss, err := crossEntropy(logits, targets, w, dl, 0.5, n, v)
		if err != nil {
			panic(err)
		}
		put("cross entropy", loss, dl)
	}
	{
		rows, D, H := 37, 64, 4
		y, dy, dots := vals(rows*D, 1, 0), vals(rows*D, 1, 0), make([]float32, rows*H)
		headDots(dots, y, dy, rows, D, H)
		put("attention row dots", dots)
	}
	{
		ys, ls := make([]float64, 20000), make([]float64, 20000)
		for i := range ys {
			ys[i] = pmath.Exp(-rng.Float64() * 40)
			ls[i] = pmath.Log(1 + float64(rng.Float64()*100))
		}
		put("math.Exp of amd64", ys)
		put("math.Log of amd64", ls)
	}
	{
		ys := make([]float64, 999)
		for i := range ys {
			ys[i] = -rng.Float64() * 30
		}
		expRow[float32](ys)
		put("expRow", ys)
	}
	return out
}

// TestKernelBitsGolden: the kernels' callers give, on this CPU, the bits recorded in
// testdata/kernel_bits.golden, which the AVX2 + FMA kernels of amd64 wrote (go test -run
// KernelBitsGolden -update with POSFORMER_AVX512=0); the AVX-512 kernels and the arm64 ones
// (under qemu-aarch64 in CI) must give the same. The generic path (gonum's products) does not.
func TestKernelBitsGolden(t *testing.T) {
	if !useKernels {
		t.Skip("the generic path does not give the kernels' bits")
	}
	got := kernelBitsSuite()
	const file = "testdata/kernel_bits.golden"
	if *updateGolden {
		var lines []string
		for name, h := range got {
			lines = append(lines, name+": "+h)
		}
		slices.Sort(lines)
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, h, _ := strings.Cut(l, ": ")
		want[name] = h
	}
	if len(want) != len(got) {
		t.Errorf("%d results, %s has %d", len(got), file, len(want))
	}
	for name, h := range got {
		if want[name] != h {
			t.Errorf("%s: bits differ from %s (%s, want %s)", name, file, h[:12], want[name])
		}
	}
}

// TestLanesMatchKernels: lanes.go's Go code gives this CPU's vector kernels' bits (on amd64 the
// AVX2 assembly; on arm64 the kernels are that Go code, and TestKernelBitsGolden checks it
// against amd64's bits), on random rows of lengths around the vector width, a sweep of GELU's
// range with its special values, and the exponential's clamps.
func TestLanesMatchKernels(t *testing.T) {
	if !useKernels || !haveKernels {
		t.Skip("no vector kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(39, 4))
	vals := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32((rng.Float64()*2 - 1) * scale)
		}
		return v
	}
	same := func(what string, a, b []float32) {
		t.Helper()
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
				t.Fatalf("%s[%d]: kernel %v, lanes %v", what, i, a[i], b[i])
			}
		}
	}
	one := func(what string, a, b float32) { t.Helper(); same(what, []float32{a}, []float32{b}) }
	for _, n := range []int{8, 9, 16, 24, 63, 64, 200, 1027} {
		x := vals(n, 10)
		one("sum8", sum8(x), sum8Lanes(x))
		one("sqdev8", sqdev8(x, 0.3), sqdev8Lanes(x, 0.3))
		one("max8", max8(x), max8Lanes(x))
		for _, m := range []float32{max8(x), 0, 100} {
			a, b := append([]float32(nil), x...), append([]float32(nil), x...)
			one("expShiftSum8", expShiftSum8(a, m), expShiftSum8Lanes(b, m))
			same("expShiftSum8 values", a, b)
		}
		a, b := append([]float32(nil), x...), append([]float32(nil), x...)
		scale8(a, 0.37)
		scale8Lanes(b, 0.37)
		same("scale8", a, b)
		p, q := vals(n, 1), vals(n, 1)
		y1, y2 := make([]float32, n), make([]float32, n)
		addv8(y1, p, q)
		addv8Lanes(y2, p, q)
		same("addv8", y1, y2)
		a, b = append([]float32(nil), x...), append([]float32(nil), x...)
		subMul8(a, p, 0.7)
		subMul8Lanes(b, p, 0.7)
		same("subMul8", a, b)
		lnFwd8(y1, x, p, q, 0.2, 1.3)
		lnFwd8Lanes(y2, x, p, q, 0.2, 1.3)
		same("lnFwd8", y1, y2)
		lnGradX8(y1, p, x, q, 0.2, 1.3, 0.01, -0.3)
		lnGradX8Lanes(y2, p, x, q, 0.2, 1.3, 0.01, -0.3)
		same("lnGradX8", y1, y2)
		rows, ld := 5, n
		g, xs, st := vals(rows*ld, 1), vals(rows*ld, 3), vals(2*rows, 2)
		o1, o2 := make([]float32, n), make([]float32, n)
		colSum8(o1, g, rows, ld)
		colSum8Lanes(o2, g, rows, ld)
		same("colSum8", o1, o2)
		lnGammaCols8(o1, g, xs, st, rows, ld)
		lnGammaCols8Lanes(o2, g, xs, st, rows, ld)
		same("lnGammaCols8", o1, o2)
	}
	var xs []float32
	for x := -20.0; x <= 20; x += 1.0 / 256 {
		xs = append(xs, float32(x))
	}
	for range 4096 {
		xs = append(xs, float32(rng.Float64()*8-4), math.Float32frombits(rng.Uint32()))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1e-45, -1e-45, 1e-38, -1e-38, 13, -13,
		math.Nextafter32(13, 14), -math.Nextafter32(13, 14), float32(math.Inf(1)), float32(math.Inf(-1)), 1e30, -1e30)
	xs = xs[:len(xs)&^7]
	g := vals(len(xs), 2)
	y1, y2 := make([]float32, len(xs)), make([]float32, len(xs))
	geluFwd8(xs, y1)
	geluFwd8Lanes(xs, y2)
	same("geluFwd8", y1, y2)
	geluBwd8(xs, g, y1)
	geluBwd8Lanes(xs, g, y2)
	same("geluBwd8", y1, y2)
	src, sum1, sum2 := vals(40*20, 1), vals(16, 1), []float32(nil)
	sum2 = append(sum2, sum1...)
	d1, d2 := make([]float32, 16*30), make([]float32, 16*30)
	copyRowsSum16(d1, src, 20, 30, sum1)
	copyRowsSum16Lanes(d2, src, 20, 30, sum2)
	same("copyRowsSum16", append(d1, sum1...), append(d2, sum2...))
}
