package ops

import (
	"gorgonia.org/tensor"
)

// Engine is the tensor engine for the tape machines that run posformer's graphs
// (G.NewTapeMachine(g, G.WithEngine(ops.Engine{}))): Gorgonia's standard engine, except that
// Add of two dense float tensors of one shape runs on addKernel (vectorised, split over the
// workers) instead of one element at a time on one core.
//
// The model's own additions use the Add op; what this reaches is the additions Gorgonia inserts
// itself while differentiating: a node used by several ops (the residual stream, read by a layer
// norm and by the next residual; the normalised input, read by the q, k and v projections) gets
// the sum of their gradients through its built-in Add. Every element is still one addition, so
// the results are the same bit for bit.
type Engine struct{ tensor.StdEng }

// Add computes a + b into the reuse tensor (or into a, when the operation may overwrite it),
// falling back to the standard engine for anything else (broadcasting, views, increments,
// other dtypes, a newly allocated result).
func (e Engine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	if y := fastAddDest(a, b, opts); y != nil {
		switch y.Dtype() {
		case tensor.Float32:
			addKernel(sl[float32](a), sl[float32](b), sl[float32](y))
			return y, nil
		case tensor.Float64:
			addKernel(sl[float64](a), sl[float64](b), sl[float64](y))
			return y, nil
		}
	}
	return e.StdEng.Add(a, b, opts...)
}

// fastAddDest returns where a + b goes when addKernel can compute it: a and b plain (not
// views, not transposed) dense tensors of one float dtype and shape, and a reuse tensor of that
// dtype and shape, or unsafe (result into a), with no increment.
func fastAddDest(a, b tensor.Tensor, opts []tensor.FuncOpt) tensor.Tensor {
	ad, ok1 := a.(*tensor.Dense)
	bd, ok2 := b.(*tensor.Dense)
	if !ok1 || !ok2 || !plain(ad) || !plain(bd) || ad.Dtype() != bd.Dtype() || !ad.Shape().Eq(bd.Shape()) {
		return nil
	}
	if dt := ad.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil
	}
	fo := tensor.ParseFuncOpts(opts...)
	if fo.Incr() != nil || fo.As() != (tensor.Dtype{}) || fo.Same() {
		return nil
	}
	if r := fo.Reuse(); r != nil {
		rd, ok := r.(*tensor.Dense)
		if !ok || !plain(rd) || rd.Dtype() != ad.Dtype() || rd.Shape().TotalSize() != ad.Shape().TotalSize() {
			return nil
		}
		if !rd.Shape().Eq(ad.Shape()) {
			if err := rd.Reshape(ad.Shape()...); err != nil {
				return nil
			}
		}
		return rd
	}
	if !fo.Safe() {
		return ad
	}
	return nil
}

// plain reports whether t's data is its whole backing array in row-major order.
func plain(t *tensor.Dense) bool {
	return !t.IsView() && !t.IsMaterializable() && t.DataOrder().IsRowMajor() && t.DataOrder().IsContiguous() && len(t.Shape()) > 0
}
