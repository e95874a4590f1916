package position_test

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// The sinusoidal encoding of position 1 in 4 dimensions: ω = [1, 0.01], so
// PE(1) = [sin 1, cos 1, sin 0.01, cos 0.01].
func ExampleSinusoidalPE() {
	fmt.Printf("%.6f\n", position.SinusoidalPE(1, 4, 10000))
	fmt.Printf("%.6f\n", position.SinusoidalPE(0, 4, 10000))
	// Output:
	// [0.841471 0.540302 0.010000 0.999950]
	// [0.000000 1.000000 0.000000 1.000000]
}

// The frequencies ωᵢ = base^(−2i/d): for d = 8 and base 10000 they fall by a factor of 10 per pair,
// and the wavelengths 2π/ωᵢ run from 2π up to 2π·base^((d−2)/d).
func ExampleOmega() {
	omega := position.Omega(10000, 8)
	for i, w := range omega {
		fmt.Printf("ω%d = %.4g, wavelength %.2f\n", i, w, 2*math.Pi/w)
	}
	// Output:
	// ω0 = 1, wavelength 6.28
	// ω1 = 0.1, wavelength 62.83
	// ω2 = 0.01, wavelength 628.32
	// ω3 = 0.001, wavelength 6283.19
}

// The registered schemes, sorted, are the values accepted by position.kind; each has a one-line
// description and its own options.
func ExampleKinds() {
	for _, kind := range position.Kinds() {
		if kind == "alibi" || kind == "rope" {
			fmt.Printf("%s: %s; options %v\n", kind, position.Doc(kind), position.Options(kind))
		}
	}
	// Output:
	// alibi: linear distance bias per head with fixed slopes (Press et al. 2022); options [{symmetric bool  encoder (model.bidirectional) only: −m·|i − j| on both sides, without the +m/2 for keys before the query that Ruoss et al.'s code adds to tell the sides apart} {log_scaling float  log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off}]
	// rope: rotary encoding of q and k (Su et al. 2021, RoFormer); options [{base float 10000 frequency base: θᵢ = base^(−2i/d_rot); above 1} {rotary_fraction float 1 fraction of each head's dimensions rotated, in (0, 1]; d_rot = d_head × fraction must be even} {rope_scaling string  at evaluation lengths beyond training only (L_eval > L_train, in tokens; s = L_eval/L_train): none; interpolate multiplies positions by 1/s (Chen et al. 2023); ntk uses the base base·s^(d_rot/(d_rot−2)) (needs d_rot > 2); dynamic_ntk the base base·(α·s − (α − 1))^(d_rot/(d_rot−2)), α = rope_factor; yarn blends θᵢ/s and θᵢ per pair between the wavelength bounds β_fast = 32, β_slow = 1 of L_train and multiplies cos and sin by 0.1·ln s + 1 (Peng et al. 2023); llama3 keeps the pairs of wavelength 2π/θᵢ below L_train/4, divides those above L_train by s and blends between (Llama 3.1); longrope divides θᵢ by rope_long_factor's λᵢ and multiplies cos and sin by √(1 + ln s / ln L_train) (Ding et al. 2024); not with randomized} {rope_factor float  dynamic_ntk's factor α ≥ 1 (Hugging Face's rope_scaling factor; α = 1 is ntk); dynamic_ntk only, and required with it} {rope_long_factor string  longrope's per-pair factors λᵢ (Hugging Face's long_factor; LongRoPE searches them per model): d_rot/2 positive numbers separated by commas, e.g. "1,1.5,2,4" for d_rot 8; longrope only, and required with it} {log_scaling float  log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off}]
}

// New builds a scheme from the config's position section; errors name the field to fix.
func ExampleNew() {
	dims := position.Dims{DModel: 64, Heads: 4, Dtype: tensor.Float64}
	s, err := position.New(position.Spec{Kind: "rope"}.With("rotary_fraction", 0.5), dims)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := s.(*position.RoPE)
	fmt.Println(s.Name(), "head dim", r.HeadDim, "rotated", r.Rot)

	_, err = position.New(position.Spec{Kind: "rope"}.With("num_buckets", 8), dims)
	fmt.Println(err)
	_, err = position.New(position.Spec{Kind: "t5"}.With("max_distance", -3), dims)
	fmt.Println(err)
	// Output:
	// rope head dim 16 rotated 8
	// position.num_buckets: not an option of rope (it has options base, rotary_fraction, rope_scaling, rope_factor, rope_long_factor, log_scaling; num_buckets is an option of t5); remove it or change position.kind
	// position.max_distance: must be positive, got -3
}

// ALiBi's slopes for 8 heads are 1/2, 1/4, …, 1/256; its table is the bias −m_h·p of the key p
// tokens before the query.
func ExampleALiBiSlopes() {
	fmt.Println(position.ALiBiSlopes(8))
	s, _ := position.New(position.Spec{Kind: "alibi"}, position.Dims{DModel: 8, Heads: 2, Dtype: tensor.Float64})
	tab, _ := s.(position.Tabler).Table(3)
	fmt.Println(tab.Columns, tab.Rows)
	// Output:
	// [0.5 0.25 0.125 0.0625 0.03125 0.015625 0.0078125 0.00390625]
	// [head0 head1] [[0 0] [-0.0625 -0.00390625] [-0.125 -0.0078125]]
}

// T5's buckets (32, max distance 128, causal): distances 0..15 have one each, then they grow
// logarithmically, and everything from 113 on shares the last bucket, 31.
func ExampleT5Bucket() {
	for _, n := range []int{0, 1, 15, 16, 24, 32, 64, 112, 113, 128, 5000} {
		fmt.Print(position.T5Bucket(-n, false, 32, 128), " ")
	}
	fmt.Println()
	// Output:
	// 0 1 15 16 19 21 26 30 31 31 31
}

// Rotate applies R(p) to one head: pair i turns by p·θᵢ. With d_head 4, θ = [1, 0.01]; at p = 1
// the first pair (1, 0) turns by one radian to (cos 1, sin 1) and the second by 0.01.
func ExampleRoPE_Rotate() {
	s, _ := position.New(position.Spec{Kind: "rope"}, position.Dims{DModel: 4, Heads: 1, Dtype: tensor.Float64})
	r := s.(*position.RoPE)
	fmt.Printf("θ = %.4g\n", r.Theta())
	fmt.Printf("%.6f\n", r.Rotate([]float64{1, 0, 1, 0}, 1))
	// Output:
	// θ = [1 0.01]
	// [0.540302 0.841471 0.999950 0.010000]
}

// The rope table holds the rotation angles p·θᵢ, one column per pair.
func ExampleRoPE_Table() {
	s, _ := position.New(position.Spec{Kind: "rope"}, position.Dims{DModel: 8, Heads: 2, Dtype: tensor.Float64})
	tab, _ := s.(position.Tabler).Table(3)
	fmt.Println(tab.Columns)
	for _, row := range tab.Rows {
		fmt.Printf("%.2f\n", row)
	}
	// Output:
	// [pair0 pair1]
	// [0.00 0.00]
	// [1.00 0.01]
	// [2.00 0.02]
}
