"""Golden values of every rope_scaling, computed once from the formulas of Hugging Face
transformers' src/transformers/modeling_rope_utils.py at commit
0044e3b3facff1a1ad60b235c69d5b45beae75a4 (_compute_linear_scaling_rope_parameters,
_compute_ntk_parameters, _compute_dynamic_ntk_parameters, _compute_yarn_parameters,
_compute_llama3_parameters, _compute_longrope_parameters), transcribed here with numpy in float64
(transformers computes in float32). Its output is pasted into position/rope_golden_test.go;
nothing here reads posformer's code.

    /usr/bin/python3 position/testdata/hf_rope_goldens.py   (needs numpy)

The set-up: base (rope_theta) 500, rotated dimension 16 (dim), training length 64
(max_position_embeddings, original_max_position_embeddings), evaluated at 128 and 640 tokens:
factor = eval / train (posformer's s) for every scaling; dynamic's factor (alpha) is 2 and its
seq_len the evaluation length; llama3's low_freq_factor 1, high_freq_factor 4; longrope's
long_factor LONG below.
"""
import math

import numpy as np

BASE, DIM, TRAIN = 500.0, 16, 64
LONG = [1.0, 1.1, 1.4, 2.0, 3.0, 5.0, 8.0, 12.0]


def default():
    return 1.0 / (BASE ** (np.arange(0, DIM, 2, dtype=np.int64).astype(np.float64) / DIM))


def linear(factor):
    return default() / factor, 1.0


def ntk(factor):
    base = BASE * factor ** (DIM / (DIM - 2))
    return 1.0 / (base ** (np.arange(0, DIM, 2).astype(np.float64) / DIM)), 1.0


def dynamic(alpha, seq_len):
    seq_len = seq_len if seq_len > TRAIN else TRAIN
    base = BASE * ((alpha * seq_len / TRAIN) - (alpha - 1)) ** (DIM / (DIM - 2))
    return 1.0 / (base ** (np.arange(0, DIM, 2).astype(np.float64) / DIM)), 1.0


def yarn(factor, beta_fast=32, beta_slow=1):
    attention_factor = 0.1 * math.log(factor) + 1.0

    def find_correction_dim(num_rotations):
        return (DIM * math.log(TRAIN / (num_rotations * 2 * math.pi))) / (2 * math.log(BASE))

    low = max(math.floor(find_correction_dim(beta_fast)), 0)
    high = min(math.ceil(find_correction_dim(beta_slow)), DIM - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(DIM // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    pos_freqs = BASE ** (np.arange(0, DIM, 2).astype(np.float64) / DIM)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    e = 1 - ramp
    return interpolation * (1 - e) + extrapolation * e, attention_factor


def llama3(factor, low_freq_factor=1.0, high_freq_factor=4.0):
    inv_freq = default()
    low_freq_wavelen = TRAIN / low_freq_factor
    high_freq_wavelen = TRAIN / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (TRAIN / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    return np.where(medium, smoothed, inv_freq_llama), 1.0


def longrope(factor):
    # factor = expanded / original > 1: the long factors and sqrt(1 + ln factor / ln original)
    attention_factor = math.sqrt(1 + math.log(factor) / math.log(TRAIN)) if factor > 1 else 1.0
    shape = np.arange(0, DIM, 2, dtype=np.int64).astype(np.float64) / DIM
    return 1.0 / (np.array(LONG) * BASE ** shape), attention_factor


def main():
    for n in (128, 640):
        s = n / TRAIN
        for name, (freqs, af) in [
            ("interpolate", linear(s)),
            ("ntk", ntk(s)),
            ("dynamic_ntk", dynamic(2.0, n)),
            ("yarn", yarn(s)),
            ("llama3", llama3(s)),
            ("longrope", longrope(s)),
        ]:
            vals = ", ".join(repr(float(x)) for x in freqs)
            print(f'{{"{name}", {n}, []float64{{{vals}}}, {af!r}}},')


main()
