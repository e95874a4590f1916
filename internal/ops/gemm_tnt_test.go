package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestGemmTNSumsTSameBits: the weight gradient computed as its transpose (gemmTNSumsT: Cᵀ = Bᵀ·A,
// then transposed, the sums by colSum) gives the bits of gemmTNSumsKern with the same kernel, for
// each float32 kernel this CPU has with 16-wide panels (the AVX2 6×16 one; the AVX-512 12×16 one
// too where the CPU has it), on 1 and 2 workers, for C taller than wide with m, n and k not
// multiples of the tiles, one and several blocks of k, A's rows a multiple of 2 KiB apart or not
// (B's panels then packed row by row, packRowsWide), and a column of B starting with −0.
func TestGemmTNSumsTSameBits(t *testing.T) {
	if !haveKernels {
		t.Skip("no float32 kernels with 16-wide panels on this CPU")
	}
	kerns := []microKernel[float32]{kernel32avx2}
	if haveAVX512 {
		kerns = append(kerns, kernel32avx512)
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, procs := range []int{1, 2} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, kern := range kerns {
				for _, s := range [][3]int{{1024, 256, 4096}, {512, 128, 416}, {1030, 250, 700}, {600, 300, 257}, {517, 130, 256}, {64, 13, 300}, {12, 5, 3}, {7, 1, 1}} { // m, n, k
					m, n, k := s[0], s[1], s[2]
					a, b := randSlice[float32](rng, k*m), randSlice[float32](rng, k*n)
					b[0] = float32(math.Copysign(0, -1)) // a column starting with −0
					want, wantS := randSlice[float32](rng, m*n), randSlice[float32](rng, n)
					got, gotS := randSlice[float32](rng, m*n), randSlice[float32](rng, n)
					gemmTNSumsKern(kern, m, n, k, a, m, b, n, want, n, wantS)
					gemmTNSumsT(kern, m, n, k, a, m, b, n, got, n, gotS)
					what := fmt.Sprintf("%d×%d kernel, %d×%d×%d on %d workers", kern.mr, kern.nr, m, n, k, workers())
					sameBits(t, what+": Aᵀ·B", got, want)
					sameBits(t, what+": column sums", gotS, wantS)
				}
			}
		}()
	}
}

// TestPackRowsWide: packB with B's rows a multiple of 2 KiB apart packs its whole 16-wide panels
// row by row (packRowsWide, on amd64 where the CPU has the vector code) into the panels a walk down each
// panel gives, the last, partial panel zero-padded, for one row to a whole block of k, offsets
// into B, and 2 to 64 panels.
func TestPackRowsWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, ldb := range []int{512, 1024, 2048} {
		b := randSlice[float32](rng, 300*ldb)
		for _, s := range [][4]int{{0, 0, 256, 1024}, {3, 16, 1, 40}, {40, 512, 7, 512}, {1, 32, 256, 33}, {44, 0, 255, 1024}} { // pc, jc, kc, nc
			pc, jc, kc, nc := s[0], s[1], s[2], s[3]
			if jc+nc > ldb {
				continue
			}
			np := (nc + 15) / 16
			want := make([]float32, np*16*kc)
			for q := 0; q < np; q++ {
				for p := 0; p < kc; p++ {
					for j := 0; j < 16 && q*16+j < nc; j++ {
						want[q*16*kc+p*16+j] = b[(pc+p)*ldb+jc+q*16+j]
					}
				}
			}
			got := randSlice[float32](rng, np*16*kc)
			packB(false, b, ldb, pc, jc, kc, nc, 16, got, nil)
			sameBits(t, fmt.Sprintf("ldb %d, pc %d, jc %d, kc %d, nc %d", ldb, pc, jc, kc, nc), got, want)
			if runtime.GOARCH == "amd64" && haveKernels && nc >= 32 && !packRowsWide(b, ldb, pc, jc, kc, nc/16, got) { // the vector code is amd64's
				t.Errorf("ldb %d: packRowsWide did not pack (%d panels)", ldb, nc/16)
			}
		}
	}
}
