package ops

import (
	"fmt"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LogScaleConfig describes the rows of a [B·T, H·Dh] query tensor.
type LogScaleConfig struct {
	Batch, Len, Heads int
	// Causal: query i sees n = i + 1 keys; otherwise every query sees n = Len.
	Causal bool
}

// LogScale multiplies head h of every query row by s[h]·ln n, n the number of keys the row's
// query sees (SSMax, Nakanishi 2025: softmax of s·ln(n)·z is the softmax of the logits of the
// query scaled by s·ln n): q [B·T, D], s [H]. Its gradient: dq = dy·s_h·ln n and ds_h = Σ dy·q·ln n
// over the head's values of every row, summed in row order.
func LogScale(q, s *G.Node, cfg LogScaleConfig) (*G.Node, error) {
	qs := q.Shape()
	if len(qs) != 2 || cfg.Heads < 1 || qs[1]%cfg.Heads != 0 || qs[0] != cfg.Batch*cfg.Len {
		return nil, fmt.Errorf("ops: LogScale: q %v does not fit batch %d × length %d with %d heads", qs, cfg.Batch, cfg.Len, cfg.Heads)
	}
	if !s.Shape().Eq(tensor.Shape{cfg.Heads}) {
		return nil, fmt.Errorf("ops: LogScale: s is %v, want [%d]", s.Shape(), cfg.Heads)
	}
	return apply(&logScaleOp{base: newBase("LogScale", 2), cfg: cfg, logs: cfg.logs()}, q, s)
}

// logs is ln n of the rows at each position t < Len: row r's is logs[r % Len].
func (c LogScaleConfig) logs() []float64 {
	ln := make([]float64, c.Len)
	for t := range ln {
		if c.Causal {
			ln[t] = pmath.Log(float64(t + 1))
		} else {
			ln[t] = pmath.Log(float64(c.Len))
		}
	}
	return ln
}

type logScaleOp struct {
	base
	cfg  LogScaleConfig
	logs []float64 // cfg.logs()
	out  buffer
}

func (op *logScaleOp) Type() hm.Type { return fnType(2, 1, 2) }

func (op *logScaleOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

func (op *logScaleOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	sh := vs[0].Shape()
	out := op.out.get(dt, sh...)
	if dt == tensor.Float32 {
		logScaleRows(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](out), sh[1], op.logs)
	} else {
		logScaleRows(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](out), sh[1], op.logs)
	}
	return out, nil
}

func logScaleRows[F Float](q, s, y []F, d int, logs []float64) {
	dh := d / len(s)
	for r := range len(q) / d {
		ln := F(logs[r%len(logs)])
		for h, sh := range s {
			f := sh * ln
			for x := h * dh; x < (h+1)*dh; x++ {
				y[r*d+x] = q[r*d+x] * f
			}
		}
	}
}

func (op *logScaleOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *logScaleOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	dq, err := apply(&logScaleOp{base: newBase("LogScaleGradQ", 2), cfg: op.cfg, logs: op.logs}, grad, in[1])
	if err != nil {
		return nil, err
	}
	ds, err := apply(&logScaleGradS{base: newBase("LogScaleGradS", 2), cfg: op.cfg, logs: op.logs}, in[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dq, ds}, nil
}

// logScaleGradS is ds_h = Σ_r ln n_r·Σ_x q[r, h·dh + x]·dy[r, h·dh + x].
type logScaleGradS struct {
	base
	cfg  LogScaleConfig
	logs []float64 // cfg.logs()
	out  buffer
}

func (op *logScaleGradS) Type() hm.Type { return fnType(2, 2, 1) }

func (op *logScaleGradS) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.cfg.Heads}, nil
}

func (op *logScaleGradS) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, op.cfg.Heads)
	d := vs[0].Shape()[1]
	if dt == tensor.Float32 {
		logScaleGrad(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](out), d, op.logs)
	} else {
		logScaleGrad(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](out), d, op.logs)
	}
	return out, nil
}

func logScaleGrad[F Float](q, dy, ds []F, d int, logs []float64) {
	dh := d / len(ds)
	clear(ds)
	for r := range len(q) / d {
		ln := F(logs[r%len(logs)])
		for h := range ds {
			var t F
			for x := h * dh; x < (h+1)*dh; x++ {
				t += F(q[r*d+x] * dy[r*d+x]) // F(): not fused on arm64, as on amd64
			}
			ds[h] += F(ln * t)
		}
	}
}

func (op *logScaleGradS) DiffWRT(int) []bool { return []bool{false, false} }

func (op *logScaleGradS) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: LogScaleGradS has no gradient of its own")
}
