package train

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
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
		switch d := g.Data().(type) {
		case []float32:
			for _, x := range d {
				s += float64(x) * float64(x)
			}
		case []float64:
			for _, x := range d {
				s += x * x
			}
		}
	}
	return math.Sqrt(s)
}

// Update applies one step with learning rate lr; every gradient is multiplied by gradScale first
// (the clipping factor).
func (a *Adam) Update(params []nn.Param, grads []*tensor.Dense, lr, gradScale float64) error {
	if len(params) != len(grads) || len(params) != len(a.M) {
		return fmt.Errorf("adam: %d parameters, %d gradients, state for %d", len(params), len(grads), len(a.M))
	}
	a.Step++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.Step))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.Step))
	for i, p := range params {
		wd := 0.0
		if a.decay[i] {
			wd = a.WeightDecay
		}
		switch w := p.Value.Data().(type) {
		case []float32:
			adamKernel(w, grads[i].Data().([]float32), a.M[i], a.V[i], a, lr, gradScale, wd, bc1, bc2)
		case []float64:
			adamKernel(w, grads[i].Data().([]float64), a.M[i], a.V[i], a, lr, gradScale, wd, bc1, bc2)
		default:
			return fmt.Errorf("adam: parameter %s has unsupported data %T", p.Name, w)
		}
	}
	return nil
}

// adamKernel updates the elements of one parameter, split over the workers (each element on its
// own, so the split changes no result).
func adamKernel[F float32 | float64](w, g []F, m, v []float64, a *Adam, lr, scale, wd, bc1, bc2 float64) {
	ops.Parallel(len(w), 16, func(_, lo, hi int) { adamRange(w, g, m, v, a, lr, scale, wd, bc1, bc2, lo, hi) })
}

func adamRange[F float32 | float64](w, g []F, m, v []float64, a *Adam, lr, scale, wd, bc1, bc2 float64, lo, hi int) {
	for j := lo; j < hi; j++ {
		gj := float64(g[j]) * scale
		m[j] = a.Beta1*m[j] + (1-a.Beta1)*gj
		v[j] = a.Beta2*v[j] + (1-a.Beta2)*gj*gj
		x := float64(w[j])
		x -= lr * (m[j]/bc1/(math.Sqrt(v[j]/bc2)+a.Eps) + wd*x)
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
	return peak * (minRatio + (1-minRatio)*0.5*(1+math.Cos(math.Pi*frac)))
}
