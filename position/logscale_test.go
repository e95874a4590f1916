package position_test

import (
	"math"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// log_scaling, the option every scheme takes: off by default (the query node passes unchanged
// and there is no parameter); on, every layer holds s [heads] at its initial value, counted by
// ParamCount, and the query of row r is multiplied by s_h·ln n (n = r + 1 causal, T in an
// encoder).
func TestLogScalingEveryKind(t *testing.T) {
	for _, kind := range position.Kinds() {
		for _, bidir := range []bool{false, true} {
			d := position.Dims{DModel: 8, Heads: 2, Layers: 3, Dtype: tensor.Float64, Bidirectional: bidir}
			off, err := position.New(position.Spec{Kind: kind}, d)
			if err != nil {
				continue // a causal-only kind in an encoder
			}
			base := position.ParamCount(position.Spec{Kind: kind}, d)
			on := mustNew(t, position.Spec{Kind: kind}.With("log_scaling", 0.25), d)
			if n := position.ParamCount(position.Spec{Kind: kind}.With("log_scaling", 0.25), d); n != base+3*2 {
				t.Errorf("%s: %d parameters with log_scaling, %d without: want 6 more", kind, n, base)
			}
			qs, ok := on.(position.QueryScaler)
			if !ok || len(qs.ScaleParams()) != 3 || len(off.(position.QueryScaler).ScaleParams()) != 0 {
				t.Fatalf("%s: log_scaling's parameters: on %v, off %v", kind, ok, len(off.(position.QueryScaler).ScaleParams()))
			}
			const T = 5
			b := nn.NewBuilder(tensor.Float64)
			q := make([]float64, 2*T*8)
			for i := range q {
				q[i] = float64(i%7) - 3
			}
			qn, _ := b.Const("test.q", tensor.New(tensor.WithShape(2*T, 8), tensor.WithBacking(q)))
			c := position.Ctx{B: b, Batch: 2, Len: T, Layer: 2}
			if same, err := off.(position.QueryScaler).ScaleQuery(c, qn); err != nil || same != qn {
				t.Fatalf("%s off: ScaleQuery gave another node (%v)", kind, err)
			}
			out, err := qs.ScaleQuery(c, qn)
			if err != nil {
				t.Fatal(err)
			}
			vm := G.NewTapeMachine(b.G)
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			y := out.Value().Data().([]float64)
			for r := range 2 * T {
				n := float64(T)
				if !bidir {
					n = float64(r%T + 1)
				}
				for x := range 8 {
					if want := q[r*8+x] * 0.25 * math.Log(n); math.Abs(y[r*8+x]-want) > 1e-15 {
						t.Fatalf("%s (bidirectional %v) row %d: %v, want %v", kind, bidir, r, y[r*8+x], want)
					}
				}
			}
			vm.Close()
		}
		_, err := position.New(position.Spec{Kind: kind}.With("log_scaling", -1), position.Dims{DModel: 8, Heads: 2, Dtype: tensor.Float64})
		if err == nil || !strings.HasPrefix(err.Error(), "position.log_scaling: ") {
			t.Errorf("%s: log_scaling -1: %v, want an error naming position.log_scaling", kind, err)
		}
	}
}
