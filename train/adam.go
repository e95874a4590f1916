package train

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	"gorgonia.org/tensor"
)

// Adam is Adam with decoupled weight decay (AdamW) over a model's parameters, updating their
// tensors in place. Its moments are kept in float64 whatever the model's dtype, so a float32
// run's optimiser state is exact to checkpoint.
type Adam struct {
	Beta1, Beta2, Eps, WeightDecay float64
	Step                           int         // number of updates made
	M, V                           [][]float64 // first and second moments, per parameter
	decay                          []bool      // which parameters decay (weight matrices)
}

// NewAdam makes an optimiser for params. Weight decay applies to weight matrices only: 2-D
// parameters whose name does not mark them as an embedding or position table.
func NewAdam(params []nn.Param, beta1, beta2, eps, wd float64) *Adam {
	a := &Adam{Beta1: beta1, Beta2: beta2, Eps: eps, WeightDecay: wd}
	for _, p := range params {
		n := p.Value.Shape().TotalSize()
		a.M = append(a.M, make([]float64, n))
		a.V = append(a.V, make([]float64, n))
		a.decay = append(a.decay, p.Value.Dims() == 2 && p.Name != "tok_emb" && p.Name[:min(4, len(p.Name))] != "pos.")
	}
	return a
}

// GradNorm is the global L2 norm of the gradients, accumulated in float64.
func GradNorm(grads []*tensor.Dense) float64 {
	var s float64
	for _, g := range grads {
		if d, ok := ops.Slice[float32](g); ok {
			for _, x := range d {
				s += float64(float64(x) * float64(x)) // not fused on arm64 (or GOAMD64=v3): amd64's bits
			}
		} else if d, ok := ops.Slice[float64](g); ok {
			for _, x := range d {
				s += float64(x * x)
			}
		}
	}
	return math.Sqrt(s)
}

// Update applies one step with learning rate lr; every gradient is multiplied by gradScale first
// (the clipping factor). The elements of all parameters form one range split over the workers
// (each element is updated on its own, so the split changes no result), float32 weights four or
// eight at a time where the CPU has AVX2 or AVX-512 (ops.AdamVec32, the same bits as adamRange).
func (a *Adam) Update(params []nn.Param, grads []*tensor.Dense, lr, gradScale float64) error {
	if len(params) != len(grads) || len(params) != len(a.M) {
		return fmt.Errorf("adam: %d parameters, %d gradients, state for %d", len(params), len(grads), len(a.M))
	}
	total := 0
	for i, p := range params {
		n := len(a.M[i])
		var wn, gn int
		if w, ok := ops.Slice[float32](p.Value); ok {
			g, ok := ops.Slice[float32](grads[i])
			if !ok {
				return fmt.Errorf("adam: parameter %s is float32, its gradient %T", p.Name, grads[i].Data())
			}
			wn, gn = len(w), len(g)
		} else if w, ok := ops.Slice[float64](p.Value); ok {
			g, ok := ops.Slice[float64](grads[i])
			if !ok {
				return fmt.Errorf("adam: parameter %s is float64, its gradient %T", p.Name, grads[i].Data())
			}
			wn, gn = len(w), len(g)
		} else {
			return fmt.Errorf("adam: parameter %s has unsupported data %T", p.Name, p.Value.Data())
		}
		// Every value must have its gradient and moments: a shorter side would leave values
		// silently not updated (or index past the end).
		if wn != n || gn != n || len(a.V[i]) != n {
			return fmt.Errorf("adam: parameter %s has %d values, %d gradients, moments of %d and %d", p.Name, wn, gn, n, len(a.V[i]))
		}
		total += n
	}
	a.Step++
	c := ops.AdamCoef{Beta1: a.Beta1, OneMinusBeta1: 1 - a.Beta1, Beta2: a.Beta2, OneMinusBeta2: 1 - a.Beta2,
		Scale: gradScale, BC1: 1 - pmath.Pow(a.Beta1, float64(a.Step)), BC2: 1 - pmath.Pow(a.Beta2, float64(a.Step)),
		Eps: a.Eps, LR: lr}
	cd := c // the coefficients of the parameters that decay
	cd.WD = a.WeightDecay
	ops.Parallel(total, 16, func(_, lo, hi int) {
		off := 0 // where parameter i's elements start in the range
		for i, p := range params {
			n := len(a.M[i])
			if off >= hi {
				return
			}
			if s, e := max(lo-off, 0), min(hi-off, n); s < e {
				k := &c
				if a.decay[i] {
					k = &cd
				}
				// ops.Slice, not Data: no allocation per parameter and chunk (checked above)
				if w, ok := ops.Slice[float32](p.Value); ok {
					g, _ := ops.Slice[float32](grads[i])
					s += ops.AdamVec32(w[s:e], g[s:e], a.M[i][s:e], a.V[i][s:e], k)
					adamRange(w, g, a.M[i], a.V[i], k, s, e)
				} else if w, ok := ops.Slice[float64](p.Value); ok {
					g, _ := ops.Slice[float64](grads[i])
					adamRange(w, g, a.M[i], a.V[i], k, s, e)
				}
			}
			off += n
		}
	})
	return nil
}

// adamRange updates elements lo..hi-1 of one parameter. Each product is converted explicitly,
// so that no build fuses a multiply and an add (GOAMD64=v3 would) and every build, and
// ops.AdamVec32, round each operation alike.
func adamRange[F float32 | float64](w, g []F, m, v []float64, c *ops.AdamCoef, lo, hi int) {
	for j := lo; j < hi; j++ {
		gj := float64(g[j]) * c.Scale
		m[j] = float64(c.Beta1*m[j]) + float64(c.OneMinusBeta1*gj)
		v[j] = float64(c.Beta2*v[j]) + float64(float64(c.OneMinusBeta2*gj)*gj)
		x := float64(w[j])
		x -= float64(c.LR * (m[j]/c.BC1/(math.Sqrt(v[j]/c.BC2)+c.Eps) + float64(c.WD*x)))
		w[j] = F(x)
	}
}

// LR is the learning rate at a step (0-based): linear warm-up from 0 over warmup steps, then a
// cosine decay from peak to peak·minRatio at the last step.
func LR(step, steps, warmup int, peak, minRatio float64) float64 {
	if step < warmup {
		return peak * float64(step+1) / float64(warmup)
	}
	span := steps - warmup
	if span <= 1 {
		return peak
	}
	frac := float64(step-warmup) / float64(span-1)
	return peak * (minRatio + float64(float64((1-minRatio)*0.5)*(1+pmath.Cos(math.Pi*frac)))) // pmath, float64(): amd64's bits on arm64
}
