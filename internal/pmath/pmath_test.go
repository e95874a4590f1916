package pmath

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

var update = flag.Bool("update", false, "rewrite testdata/pmath.golden from amd64's math")

// fn is one function under test: math's on amd64, the portable one, and what the package exports.
type fn struct {
	name     string
	math     func(x, y float64) float64
	portable func(x, y float64) float64
	export   func(x, y float64) float64
	args     func(rng *rand.Rand) (x, y float64)
}

func sinOf(f func(float64) (float64, float64)) func(x, _ float64) float64 {
	return func(x, _ float64) float64 { s, _ := f(x); return s }
}

func cosOf(f func(float64) (float64, float64)) func(x, _ float64) float64 {
	return func(x, _ float64) float64 { _, c := f(x); return c }
}

func one(f func(float64) float64) func(x, _ float64) float64 {
	return func(x, _ float64) float64 { return f(x) }
}

// The argument generators convert their products too, so that arm64 draws amd64's arguments.

// anyBits is a float64 of random bits: every magnitude, NaNs and infinities included.
func anyBits(rng *rand.Rand) float64 { return math.Float64frombits(rng.Uint64()) }

var fns = []fn{
	{"Exp", one(math.Exp), one(expPortable), one(Exp), func(r *rand.Rand) (float64, float64) {
		return []float64{-r.Float64() * 30, (float64(r.Float64()*2) - 1) * 750, anyBits(r)}[r.IntN(3)], 0
	}},
	{"Log", one(math.Log), one(logPortable), one(Log), func(r *rand.Rand) (float64, float64) {
		// √2/2·2^k and its neighbours: where the reduction switches.
		c := math.Ldexp(7.07106781186547524401e-01, r.IntN(2001)-1000)
		return []float64{math.Abs(anyBits(r)), 1 + float64(r.Float64()*100), r.Float64(), c, math.Nextafter(c, 0), math.Nextafter(c, 2)}[r.IntN(6)], 0
	}},
	{"Sin", sinOf(math.Sincos), sinOf(sincosPortable), sinOf(Sincos), trigArg},
	{"Cos", cosOf(math.Sincos), cosOf(sincosPortable), cosOf(Sincos), trigArg},
	{"Cos1", one(math.Cos), cosOf(sincosPortable), one(Cos), trigArg},
	{"Pow", math.Pow, powPortable, Pow, func(r *rand.Rand) (float64, float64) {
		switch r.IntN(4) {
		case 0: // θᵢ = base^(−2i/d), ALiBi's slopes 2^(−8k/n)
			return []float64{2, 10, 500, 1e4, 1e6}[r.IntN(5)], -float64(r.IntN(256)) / float64(1+r.IntN(256))
		case 1: // Adam's βᵗ
			return []float64{0.9, 0.98, 0.99, 0.999}[r.IntN(4)], float64(r.IntN(100000))
		case 2:
			return r.Float64() * 100, (float64(r.Float64()*2) - 1) * 50
		}
		return anyBits(r), anyBits(r)
	}},
	{"Log1p", one(math.Log1p), one(log1pPortable), one(Log1p), func(r *rand.Rand) (float64, float64) {
		return []float64{r.Float64() * 1e4, float64(r.Float64()*2) - 1, (r.Float64() - 0.5) * 1e-8, anyBits(r)}[r.IntN(4)], 0
	}},
	{"Erf", one(math.Erf), one(erfPortable), one(Erf), func(r *rand.Rand) (float64, float64) {
		return []float64{(float64(r.Float64()*2) - 1) * 7, (float64(r.Float64()*2) - 1) * 1.3, (r.Float64() - 0.5) * 1e-8, anyBits(r)}[r.IntN(4)], 0
	}},
	{"Expm1", one(math.Expm1), one(expm1Portable), one(Expm1), func(r *rand.Rand) (float64, float64) {
		return []float64{(float64(r.Float64()*2) - 1) * 3, (float64(r.Float64()*2) - 1) * 60, (r.Float64() - 0.5) * 1e-8, anyBits(r)}[r.IntN(4)], 0
	}},
}

// trigArg is an angle p·θ of a position table, a larger one, or any float64.
func trigArg(r *rand.Rand) (float64, float64) {
	switch r.IntN(4) {
	case 0:
		return float64(r.IntN(4096)) * math.Ldexp(r.Float64(), -r.IntN(14)), 0
	case 1:
		return (float64(r.Float64()*2) - 1) * 1e6, 0
	case 2:
		return (float64(r.Float64()*2) - 1) * 1e12, 0 // past the Payne-Hanek threshold 2^29
	}
	return anyBits(r), 0
}

// edges are special and boundary arguments every function is checked on.
var edges = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, 3, -3, math.Inf(1), math.Inf(-1), math.NaN(),
	5e-324, -5e-324, 2.2e-308, math.MaxFloat64, -math.MaxFloat64, 709.78, 709.79, -708, -708.4, -709, -720, -744.4,
	-745.2, -746, 1e10, -1e10, 1 << 29, 1<<29 - 1,
	0.34657359027997264, 1.0397207708399179, 38.816242111356935, 0.41421356237309503, -0.2928932188134525, 1e-9, 1 << 53}

// args is n arguments (x, y) of f: the edges crossed with themselves, then random ones.
func args(f fn, n int) [][2]float64 {
	var out [][2]float64
	for _, x := range edges {
		for _, y := range edges {
			out = append(out, [2]float64{x, y})
		}
	}
	rng := rand.New(rand.NewPCG(39, uint64(len(f.name))))
	for range n {
		x, y := f.args(rng)
		out = append(out, [2]float64{x, y})
	}
	return out
}

func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestPortableIsAMD64: on amd64 each portable function gives math's bits (Exp: its FMA path) on
// 300,000 arguments of every magnitude, the ranges the runs use, and the special cases.
func TestPortableIsAMD64(t *testing.T) {
	if runtime.GOARCH != "amd64" || !cpu.X86.HasFMA {
		t.Skip("math is amd64's (Exp: its FMA path) only on amd64 with FMA")
	}
	for _, f := range fns {
		for _, a := range args(f, 300000) {
			if got, want := f.portable(a[0], a[1]), f.math(a[0], a[1]); !same(got, want) {
				t.Fatalf("%s portable (%v, %v) = %v (%#x), math: %v (%#x)", f.name, a[0], a[1], got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
	}
}

// TestNormIsAMD64: on amd64 normPortable makes rand's draws and values, bit for bit, over 5·10⁶
// draws (arm64's rand differs in about 1 of 45,000: 111 of these).
func TestNormIsAMD64(t *testing.T) {
	if runtime.GOARCH != "amd64" || !cpu.X86.HasFMA {
		t.Skip("rand's NormFloat64 has amd64's bits (its Exp: the FMA path) only on amd64 with FMA")
	}
	a, b := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	for i := range 5000000 {
		if got, want := normPortable(a), b.NormFloat64(); !same(got, want) {
			t.Fatalf("draw %d: normPortable %v, rand %v", i, got, want)
		}
	}
	if a.Uint64() != b.Uint64() {
		t.Fatal("normPortable drew a different number of values from its source than rand")
	}
}

// TestGolden: the exported functions (and NormFloat64's draws) give amd64's hashes (testdata/pmath.golden, written on amd64
// with -update) on every CPU: under qemu-aarch64-static this is what checks arm64.
func TestGolden(t *testing.T) {
	var lines []string
	for _, f := range fns {
		h := sha256.New()
		for _, a := range args(f, 100000) {
			v := f.export(a[0], a[1])
			if math.IsNaN(v) {
				v = math.NaN() // one NaN: amd64 and arm64 make different ones
			}
			h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
		}
		lines = append(lines, fmt.Sprintf("%s %x", f.name, h.Sum(nil)))
	}
	h, rng := sha256.New(), rand.New(rand.NewPCG(39, 7))
	for range 2000000 {
		h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(NormFloat64(rng))))
	}
	lines = append(lines, fmt.Sprintf("NormFloat64 %x", h.Sum(nil)))
	got := strings.Join(lines, "\n") + "\n"
	const file = "testdata/pmath.golden"
	if *update {
		if runtime.GOARCH != "amd64" {
			t.Fatal("-update writes amd64's hashes: run it on amd64")
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (write it on amd64: go test ./internal/pmath -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("hashes differ from amd64's:\ngot:\n%swant:\n%s", got, want)
	}
}
