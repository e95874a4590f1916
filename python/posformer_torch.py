#!/usr/bin/python3
"""posformer's transformer in PyTorch, written independently of the Go code.

One module serves three purposes:

* load a model that `train export RUN_DIR` wrote (a .safetensors file; layout in
  docs/export.md) and run it in PyTorch:

      import sys; sys.path.insert(0, "python")
      import posformer_torch as pt
      model = pt.load("runs/default/<run>/model.safetensors")   # a torch.nn.Module, eval mode
      logits = model(tokens)                  # tokens: LongTensor [B, T] -> logits [B, T, vocab]
      logits = model(tokens, positions)       # randomized positions: LongTensor [B, T]

* the golden cross-check of posformer's forward pass (`check`, run by the Go test
  train/crosscheck_test.go): same weights, same inputs, logits compared;

* the PyTorch side of the speed comparison (`bench`, run by docs/measure_performance.sh):
  random-token training steps with Adam and forward-only passes, printing RESULT and EVAL lines.

The model, from the papers' formulas (Vaswani et al. 2017; pre-LayerNorm as in GPT-2):

    x = E[token] (+ PE(position) for the absolute schemes)              [B, T, D]
    per block:  x = x + Attn(LN1(x));  x = x + W2 GELU(W1 LN2(x) + b1) + b2
    logits = LN_f(x) Wh + bh                                             [B, T, V]
    Attn: q, k, v = x Wq + bq, ...; head h is columns h*dh .. (h+1)*dh - 1;
          rope rotates q and k; s = q k^T / sqrt(dh) (q k^T with unscaled_logits)
          + bias (alibi, t5) + causal mask;
          softmax over keys; heads concatenated; x Wo + bo.
    LayerNorm: biased variance, eps 1e-5.  GELU: exact, x * Phi(x).

Position schemes (docs/schemes.md):
    sinusoidal  PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = base^(-2i/D)
    learned     a table [max_positions, D], row p added at position p
    rope        RoFormer: pair (2i, 2i+1) of the first d_rot = round(dh * rotary_fraction) values
                of each head turned by p * theta_i, theta_i = base^(-2i/d_rot); beyond the
                training length L_train (T > L_train, s = T/L_train) rope_scaling interpolate
                uses p/s (Chen et al. 2023), ntk uses base * s^(d_rot/(d_rot-2))
    none        nothing (NoPE)
    alibi       Press et al. 2022: + m_h (j - i) for keys j <= i, -m_h |i - j| bidirectional,
                the slopes of the paper's reference code
    t5          Raffel et al. 2020: + b[h, bucket(j - i)], T5's relative_position_bucket
    kerple      Chi et al. 2022 (log): - r1_h log(1 + r2_h |i - j|), r = 0.01 + softplus(rho)
    fire        Li et al. 2024: MLP(psi(i - j) / psi(max(L, i)))_h, psi(x) = log(|c| x + 1); causal
    randomized  (Ruoss et al. 2023) the absolute and rotary schemes at given positions: pass them.
Tables (sinusoidal, rope angles, alibi, t5 buckets) are computed in float64 and cast to the
model's dtype. Run with Debian's interpreter and PyTorch: /usr/bin/python3 (apt-get install
python3-torch libopenblas0-pthread).

FLOP estimate per training step (bench; the formula of the earlier reference script):
  N_params = all parameters excluding the embedding tables (token and learned positions),
  tokens = batch * seq; dense = 2 * N_params * tokens * 3 (forward = 2*N*tokens, backward 2x);
  attn = 4 * batch * seq^2 * d_model * layers * 3 (QK^T and AV); per step dense + attn.
  Forward only: factor 1 instead of 3.
"""
import argparse
import json
import math
import os
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:
    if __name__ != "__main__":
        raise
    sys.exit(f"posformer_torch: {e}: this module needs PyTorch; on Debian: apt-get install python3-torch "
             "libopenblas0-pthread, then run it with /usr/bin/python3")

LAYER_NORM_EPS = 1e-5
EXPORT_VERSIONS = ("1", "2")  # 2: unscaled_logits (train.ExportVersionUnscaled)
DTYPES = {"float32": torch.float32, "float64": torch.float64}
SAFETENSORS_DTYPES = {"F32": torch.float32, "F64": torch.float64}


# ---------------------------------------------------------------- safetensors

def read_safetensors(path):
    """Reads a .safetensors file: (name -> tensor, metadata dict). Spec: an 8-byte little-endian
    header length N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, and
    "__metadata__": {str: str}}, then the raw little-endian tensors (offsets from the end of the
    header)."""
    if sys.byteorder != "little":
        raise RuntimeError("posformer_torch reads safetensors on little-endian machines only")
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    if len(raw) < 8 or n > len(raw) - 8:
        raise ValueError(f"{path}: not a safetensors file (its {len(raw)} bytes do not hold the header they announce); "
                         "give the model.safetensors that `train export RUN_DIR` wrote")
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
        meta = header.pop("__metadata__", {})
    except (ValueError, AttributeError) as e:
        raise ValueError(f"{path}: not a safetensors file (header: {e}); give the model.safetensors that `train export RUN_DIR` wrote")
    data = raw[8 + n:]
    tensors = {}
    for name, info in header.items():
        dt = SAFETENSORS_DTYPES.get(info["dtype"])
        if dt is None:
            raise ValueError(f"{path}: tensor {name} has dtype {info['dtype']}; posformer writes F32 or F64")
        begin, end = info["data_offsets"]
        if end > len(data):
            raise ValueError(f"{path}: tensor {name} ends at byte {end} of the data, which has {len(data)}: "
                             "the file is truncated; export the run again (train export RUN_DIR -force)")
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=dt) if end > begin else torch.empty(0, dtype=dt)
        tensors[name] = t.reshape(info["shape"])
    return tensors, meta


# ---------------------------------------------------------------- position schemes

class Scheme(nn.Module):
    """A position scheme: each hook defaults to doing nothing."""

    def embed(self, x, pos):
        """x [B, T, D], pos [B, T] (int64): the embeddings with position information added."""
        return x

    def rotate(self, q, k, pos, train_len):
        """q, k [B, H, T, dh]: rotated (rope)."""
        return q, k

    def bias(self, T):
        """[H, T, T] added to the scaled logits (query i, key j), or None."""
        return None


def sinusoidal_pe(pos, d, base):
    """PE[..., 2i] = sin(p w_i), PE[..., 2i+1] = cos(p w_i), w_i = base^(-2i/d), in float64."""
    i = torch.arange(d // 2, dtype=torch.float64)
    w = base ** (-2.0 * i / d)
    a = pos.to(torch.float64).unsqueeze(-1) * w                   # [..., d/2]
    return torch.stack((torch.sin(a), torch.cos(a)), dim=-1).flatten(-2)   # [..., d], interleaved


class Sinusoidal(Scheme):
    def __init__(self, d, base):
        super().__init__()
        self.d, self.base = d, base
        self._cache = {}

    def embed(self, x, pos):
        if pos is None:  # 0..T-1 in every sequence: one table, cached for the benchmark
            T = x.shape[1]
            key = (T, x.dtype)
            if key not in self._cache:
                self._cache[key] = sinusoidal_pe(torch.arange(T), self.d, self.base).to(x.dtype)
            return x + self._cache[key]
        return x + sinusoidal_pe(pos, self.d, self.base).to(x.dtype)


class Learned(Scheme):
    def __init__(self, rows, d):
        super().__init__()
        self.table = nn.Parameter(torch.randn(rows, d) * 0.02)

    def embed(self, x, pos):
        if pos is None:
            rows, T = self.table.shape[0], x.shape[1]
            if T > rows:  # as posformer's Learned.checkRows: a ValueError, not a shape mismatch
                raise ValueError(f"position.max_positions: the learned table has {rows} rows but position {T - 1} is needed; "
                                 f"give at most {rows} tokens")
            return x + self.table[:T]
        return x + F.embedding(pos, self.table)


class RoPE(Scheme):
    def __init__(self, head_dim, base, rotary_fraction, scaling):
        super().__init__()
        rot = int(math.floor(head_dim * rotary_fraction + 0.5))  # round half up
        if rot % 2 or rot == 0:
            raise ValueError(f"rope: rotated dimension {rot} must be even and positive")
        self.rot, self.base = rot, base
        self.scaling = scaling if scaling in ("interpolate", "ntk") else None
        self._cache = {}

    def angles(self, pos, T, train_len):
        """p * theta_i in float64 for pos [..., T]: [..., T, rot/2], with rope_scaling beyond
        the training length."""
        base, scale = self.base, 1.0
        if self.scaling and train_len > 0 and T > train_len:
            s = T / train_len
            if self.scaling == "interpolate":
                scale = 1.0 / s
            else:
                base = self.base * s ** (self.rot / (self.rot - 2))
        i = torch.arange(self.rot // 2, dtype=torch.float64)
        theta = base ** (-2.0 * i / self.rot)
        return (pos.to(torch.float64) * scale).unsqueeze(-1) * theta

    def tables(self, pos, T, train_len, dtype):
        if pos is None:
            key = (T, train_len, dtype)
            if key not in self._cache:
                a = self.angles(torch.arange(T), T, train_len)          # [T, rot/2]
                self._cache[key] = (torch.cos(a).to(dtype), torch.sin(a).to(dtype))
            return self._cache[key]
        a = self.angles(pos, T, train_len).unsqueeze(1)                   # [B, 1, T, rot/2]
        return torch.cos(a).to(dtype), torch.sin(a).to(dtype)

    def turn(self, x, cos, sin):
        r, rest = x[..., : self.rot], x[..., self.rot:]
        x0, x1 = r[..., 0::2], r[..., 1::2]                                # pair (2i, 2i+1)
        y = torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)
        return torch.cat((y, rest), dim=-1) if rest.shape[-1] else y

    def rotate(self, q, k, pos, train_len):
        cos, sin = self.tables(pos, q.shape[2], train_len, q.dtype)
        return self.turn(q, cos, sin), self.turn(k, cos, sin)


def alibi_slopes(n):
    """The slopes of Press et al.'s reference code (get_slopes)."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + alibi_slopes(2 * c)[0::2][: n - c]


class ALiBi(Scheme):
    def __init__(self, heads, bidirectional):
        super().__init__()
        self.m = torch.tensor(alibi_slopes(heads), dtype=torch.float64)
        self.bidirectional = bidirectional
        self._cache = {}

    def bias(self, T):
        if T not in self._cache:
            i = torch.arange(T, dtype=torch.float64).unsqueeze(1)   # query
            j = torch.arange(T, dtype=torch.float64).unsqueeze(0)   # key
            d = -(i - j).abs() if self.bidirectional else (j - i)
            self._cache[T] = self.m.view(-1, 1, 1) * d              # [H, T, T], float64
        return self._cache[T]


def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    """T5's relative_position_bucket for one relative position rel = key - query (float64 logs)."""
    ret = 0
    if bidirectional:
        num_buckets //= 2
        if rel > 0:
            ret = num_buckets
        n = abs(rel)
    else:
        n = max(-rel, 0)
    exact = num_buckets // 2
    if n < exact:
        return ret + n
    large = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (num_buckets - exact))
    return ret + min(large, num_buckets - 1)


class T5Bias(Scheme):
    def __init__(self, heads, num_buckets, max_distance, bidirectional):
        super().__init__()
        self.table = nn.Parameter(torch.randn(heads, num_buckets) * 0.02)
        self.nb, self.md, self.bidirectional = num_buckets, max_distance, bidirectional
        self._cache = {}

    def bias(self, T):
        if T not in self._cache:
            b = [[t5_bucket(j - i, self.bidirectional, self.nb, self.md) for j in range(T)] for i in range(T)]
            self._cache[T] = torch.tensor(b, dtype=torch.long)
        return self.table[:, self._cache[T]]                            # [H, T, T]


def _distances(T, bidirectional):
    """d[i, j] = i - j in float64 ([T, T]); |i - j| bidirectional, else clamped at 0 (keys after
    the query are masked, and a negative distance would make the logarithms NaN)."""
    i = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    d = i - torch.arange(T, dtype=torch.float64).unsqueeze(0)
    return d.abs() if bidirectional else d.clamp(min=0)


class Kerple(Scheme):
    """KERPLE, logarithmic kernel (Chi et al. 2022, section 3.3): -r1_h log(1 + r2_h |i - j|),
    r = 0.01 + softplus(rho) with rho [2H] (r1 of every head, then r2)."""
    FLOOR = 1e-2

    def __init__(self, heads, bidirectional):
        super().__init__()
        self.h, self.bidirectional = heads, bidirectional
        self.rho = nn.Parameter(torch.zeros(2 * heads))

    def bias(self, T):
        r = self.FLOOR + F.softplus(self.rho.to(torch.float64))
        r1, r2 = r[: self.h].view(-1, 1, 1), r[self.h:].view(-1, 1, 1)
        return -r1 * torch.log1p(r2 * _distances(T, self.bidirectional))       # [H, T, T]


class FIRE(Scheme):
    """FIRE (Li et al. 2024, section 3.2): f(psi(i - j) / (psi(max(L, i)) + 1e-6))_h with
    psi(x) = log(|c| x + 1), f an MLP 1 -> width -> H with ReLU, L = |m| init_l; theta holds
    W1 [width], b1 [width], W2 [width, H], b2 [H], c, m. Causal only."""
    EPS = 1e-6

    def __init__(self, heads, width, init_l, bidirectional):
        super().__init__()
        if bidirectional:
            raise ValueError("fire is causal only (posformer refuses model.bidirectional with it)")
        self.h, self.w, self.l0 = heads, width, init_l
        self.theta = nn.Parameter(torch.zeros(2 * width + width * heads + heads + 2))

    def bias(self, T):
        th = self.theta.to(torch.float64)
        W, H = self.w, self.h
        w1, b1 = th[:W], th[W: 2 * W]
        w2, b2 = th[2 * W: 2 * W + W * H].view(W, H), th[2 * W + W * H: 2 * W + W * H + H]
        c, m = th[-2].abs(), th[-1].abs()
        psi = lambda x: torch.log1p(c * x)
        i = torch.arange(T, dtype=torch.float64).unsqueeze(1)                  # query
        x = psi(_distances(T, False)) / (psi(torch.maximum(i, m * self.l0)) + self.EPS)  # [T, T]
        hidden = torch.relu(x.unsqueeze(-1) * w1 + b1)                          # [T, T, width]
        return (hidden @ w2 + b2).permute(2, 0, 1)                               # [H, T, T]


def make_scheme(kind, opt, d_model, heads, bidirectional):
    """The scheme of a resolved position section. Options a resolved config always holds are
    required; rope_scaling is omitted when none."""
    def need(key):
        if key not in opt:
            raise ValueError(f"position.{key} is missing from the export's posformer.model; re-export the run with this posformer")
        return opt[key]
    if kind == "sinusoidal":
        return Sinusoidal(d_model, float(need("base")))
    if kind == "learned":
        return Learned(int(need("max_positions")), d_model)
    if kind == "rope":
        return RoPE(d_model // heads, float(need("base")), float(need("rotary_fraction")), opt.get("rope_scaling", "none"))
    if kind == "none":
        return Scheme()
    if kind == "alibi":
        return ALiBi(heads, bidirectional)
    if kind == "t5":
        return T5Bias(heads, int(need("num_buckets")), int(need("max_distance")), bidirectional)
    if kind == "kerple":
        return Kerple(heads, bidirectional)
    if kind == "fire":
        return FIRE(heads, int(need("mlp_width")), float(need("init_l")), bidirectional)
    raise ValueError(f"position.kind {kind!r}: posformer_torch has no such scheme")


# ---------------------------------------------------------------- the model

class Block(nn.Module):
    def __init__(self, d, heads, d_ff, scaled=True):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.scale = 1 / math.sqrt(self.dh) if scaled else 1.0     # unscaled_logits: T5's q k^T
        self.ln1 = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln2 = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
        self.fc1 = nn.Linear(d, d_ff)
        self.fc2 = nn.Linear(d_ff, d)

    def attention(self, x, scheme, pos, train_len, bias, mask):
        B, T, D = x.shape
        split = lambda y: y.view(B, T, self.h, self.dh).transpose(1, 2)   # [B, H, T, dh]
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        q, k = scheme.rotate(q, k, pos, train_len)
        s = torch.matmul(q, k.transpose(-2, -1)) * self.scale              # [B, H, T, T]
        if bias is not None:
            s = s + bias
        if mask is not None:
            s = s + mask
        y = torch.matmul(torch.softmax(s, dim=-1), v)                     # [B, H, T, dh]
        return self.o(y.transpose(1, 2).reshape(B, T, D))

    def forward(self, x, scheme, pos, train_len, bias, mask):
        x = x + self.attention(self.ln1(x), scheme, pos, train_len, bias, mask)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Posformer(nn.Module):
    """posformer's decoder (or encoder, bidirectional) for a resolved architecture: the JSON of
    an export's posformer.model metadata (docs/export.md)."""

    def __init__(self, arch):
        super().__init__()
        self.arch = arch
        D, H, V = arch["d_model"], arch["heads"], arch["vocab"]
        self.bidirectional = bool(arch.get("bidirectional", False))
        self.train_len = int(arch.get("train_len", 0))
        pos = arch.get("position", {})
        self.tok_emb = nn.Parameter(torch.randn(V, D))
        self.scheme = make_scheme(pos.get("kind", "sinusoidal"), pos, D, H, self.bidirectional)
        scaled = not arch.get("unscaled_logits", False)
        self.blocks = nn.ModuleList(Block(D, H, arch["d_ff"], scaled) for _ in range(arch["layers"]))
        self.lnf = nn.LayerNorm(D, eps=LAYER_NORM_EPS)
        self.head = nn.Linear(D, V)
        self._masks = {}

    def mask(self, T, dtype):
        """The causal mask [T, T]: 0 on and below the diagonal, -inf above; None bidirectional."""
        if self.bidirectional:
            return None
        if (T, dtype) not in self._masks:
            self._masks[(T, dtype)] = torch.triu(torch.full((T, T), float("-inf"), dtype=dtype), diagonal=1)
        return self._masks[(T, dtype)]

    def forward(self, tokens, positions=None):
        """tokens [B, T] (int64) -> logits [B, T, vocab]. positions [B, T]: each token's position
        (randomized positions), default 0..T-1; alibi and t5 use token indices, not positions."""
        T = tokens.shape[1]
        x = F.embedding(tokens, self.tok_emb)                             # [B, T, D]
        x = self.scheme.embed(x, positions)
        bias = self.scheme.bias(T)
        if bias is not None:
            bias = bias.to(x.dtype)
        mask = self.mask(T, x.dtype)
        for b in self.blocks:
            x = b(x, self.scheme, positions, self.train_len, bias, mask)
        return self.head(self.lnf(x))


def _linear(dst, w, b):
    # posformer stores W as [input, output] (y = x W + b); nn.Linear's weight is [output, input].
    dst.weight.data = w.t().contiguous()
    dst.bias.data = b.clone()


def _norm(dst, g, b):
    dst.weight.data, dst.bias.data = g.clone(), b.clone()


def load(path):
    """Builds the model an export describes and loads its weights; returns it in eval mode,
    in the export's dtype."""
    tensors, meta = read_safetensors(path)
    if meta.get("posformer.export_version") not in EXPORT_VERSIONS:
        raise ValueError(f"{path}: export version {meta.get('posformer.export_version')!r}, this module reads {', '.join(EXPORT_VERSIONS)}")
    arch = json.loads(meta["posformer.model"])
    dtype = DTYPES[arch["dtype"]]
    m = Posformer(arch).to(dtype)
    used = set()

    def get(name):
        used.add(name)
        if name not in tensors:
            raise ValueError(f"{path}: tensor {name} is missing; export the run again (train export RUN_DIR -force)")
        return tensors[name]

    m.tok_emb.data = get("tok_emb").clone()
    kind = arch["position"]["kind"]
    if kind == "learned":
        m.scheme.table.data = get("pos.learned.table").clone()
    elif kind == "t5":
        m.scheme.table.data = get("pos.t5.bias").clone()
    elif kind == "kerple":
        m.scheme.rho.data = get("pos.kerple.rho").clone()
    elif kind == "fire":
        m.scheme.theta.data = get("pos.fire.theta").clone()
    for i, b in enumerate(m.blocks):
        p = f"block{i}."
        _norm(b.ln1, get(p + "ln1.gamma"), get(p + "ln1.beta"))
        for lin, n in ((b.q, "q"), (b.k, "k"), (b.v, "v"), (b.o, "o")):
            _linear(lin, get(p + "attn.w" + n), get(p + "attn.b" + n))
        _norm(b.ln2, get(p + "ln2.gamma"), get(p + "ln2.beta"))
        _linear(b.fc1, get(p + "mlp.w1"), get(p + "mlp.b1"))
        _linear(b.fc2, get(p + "mlp.w2"), get(p + "mlp.b2"))
    _norm(m.lnf, get("lnf.gamma"), get("lnf.beta"))
    _linear(m.head, get("head.w"), get("head.b"))
    if set(tensors) != used:
        raise ValueError(f"{path}: tensors this module does not know: {sorted(set(tensors) - used)}")
    return m.eval()


# ---------------------------------------------------------------- check: the Go cross-check

def check(request_path):
    """Reads a request {"cases": [{"file", "tokens": [[...]], "positions": [[...]] or null}]} and
    prints {"cases": [{"logits": [...]}]}: each case's logits [B, T, V] flattened, as exact
    decimal float64 values."""
    req = json.load(open(request_path))
    models, out = {}, []
    with torch.no_grad():
        for c in req["cases"]:
            if c["file"] not in models:
                models[c["file"]] = load(c["file"])
            tokens = torch.tensor(c["tokens"], dtype=torch.long)
            pos = c.get("positions")
            pos = torch.tensor(pos, dtype=torch.long) if pos is not None else None
            logits = models[c["file"]](tokens, pos)
            out.append({"logits": logits.to(torch.float64).flatten().tolist()})
    json.dump({"cases": out}, sys.stdout)


# ---------------------------------------------------------------- bench: the speed reference

def dense_params(model):
    skip = {id(model.tok_emb)}
    if isinstance(model.scheme, Learned):
        skip.add(id(model.scheme.table))
    return sum(p.numel() for p in model.parameters() if id(p) not in skip)


def flops(model, a, B, T, factor):
    dense = 2 * dense_params(model) * B * T * factor
    attn = 4 * B * T * T * a.d_model * a.layers * factor
    return dense + attn


def bench(a):
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed + 1)
    arch = {"vocab": a.vocab, "d_model": a.d_model, "heads": a.heads, "layers": a.layers, "d_ff": a.d_ff,
            "dtype": "float32", "bidirectional": False, "train_len": 0,
            "position": {"kind": a.pos, "base": 10000.0, "rotary_fraction": 1.0, "max_positions": a.max_pos,
                         "num_buckets": 32, "max_distance": 128, "mlp_width": 32, "init_l": 512.0}}
    model = Posformer(arch)
    n_all = sum(p.numel() for p in model.parameters())
    env = " ".join(f"{k}={os.environ.get(k, '-')}" for k in
                   ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE"))
    print("env:", env)
    print(f"torch {torch.__version__} threads={torch.get_num_threads()} pos={a.pos} layers={a.layers} "
          f"d={a.d_model} h={a.heads} ff={a.d_ff} V={a.vocab} params={n_all} dense_params={dense_params(model)}")
    if a.eval:
        model.eval()
        print("EVAL forward-only (no_grad), batch=%d" % a.batch)
        for T in [int(x) for x in a.eval_seqs.split(",") if x]:
            if a.pos == "learned" and T > a.max_pos:
                print(f"eval seq={T}: skipped (learned table has {a.max_pos} rows)")
                continue
            idx = torch.randint(0, a.vocab, (a.batch, T), generator=gen)
            with torch.no_grad():
                for _ in range(3):
                    model(idx)
                t0 = time.perf_counter()
                for _ in range(a.eval_iters):
                    model(idx)
                dt = time.perf_counter() - t0
            fl = flops(model, a, a.batch, T, 1)
            print(f"EVAL seq={T} batch={a.batch} tok/s={a.batch*T*a.eval_iters/dt:.0f} "
                  f"ms/fwd={dt/a.eval_iters*1e3:.2f} GFLOP/fwd={fl/1e9:.4f} GFLOP/s={fl*a.eval_iters/dt/1e9:.2f}")
        return
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    T = a.seq
    fl_step = flops(model, a, a.batch, T, 3)
    t_start = time.perf_counter()
    t_meas, losses = None, []
    for step in range(a.steps):
        if step == a.warmup:
            t_meas = time.perf_counter()
        seq = torch.randint(0, a.vocab, (a.batch, T + 1), generator=gen)
        logits = model(seq[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, a.vocab), seq[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    t_end = time.perf_counter()
    meas = a.steps - a.warmup
    dt = t_end - t_meas
    print(f"first loss {losses[0]:.4f} final loss {sum(losses[-10:])/min(10, len(losses)):.4f} (mean last 10)")
    print(f"RESULT pos={a.pos} task=random layers={a.layers} d={a.d_model} h={a.heads} ff={a.d_ff} "
          f"B={a.batch} T={T} steps={meas}(+{a.warmup} warmup) tok/s={a.batch*T*meas/dt:.0f} "
          f"ms/step={dt/meas*1e3:.2f} GFLOP/step={fl_step/1e9:.4f} GFLOP/s={fl_step*meas/dt/1e9:.2f} "
          f"wall_total={t_end-t_start:.1f}s")


class Parser(argparse.ArgumentParser):
    """argparse with a bad command line reported in one line (exit status 2), no usage block."""

    def error(self, message):
        print(f"{self.prog}: {message} (see {self.prog} -h)", file=sys.stderr)
        sys.exit(2)


def show(path, tokens):
    """Prints an export's architecture and tensors, and the logits of tokens (if any)."""
    tensors, meta = read_safetensors(path)
    if "posformer.model" not in meta:
        raise ValueError(f"{path}: no posformer.model in its metadata: not a file `train export RUN_DIR` wrote")
    vocab = json.loads(meta["posformer.model"]).get("vocab", 0)
    if bad := [t for t in tokens if not 0 <= t < vocab]:
        raise ValueError(f"tokens {bad}: outside the model's vocabulary 0..{vocab - 1}")
    print("posformer.model:", meta.get("posformer.model"))
    for name, t in sorted(tensors.items()):
        print(f"{name} {t.dtype} {list(t.shape)}")
    if tokens:
        with torch.no_grad():
            logits = load(path)(torch.tensor([tokens]))[0]
        for i, row in enumerate(logits):
            print(f"token {tokens[i]} at {i}: next {int(row.argmax())}, logits {[round(float(x), 4) for x in row]}")


def main():
    ap = Parser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="logits of exported models for the Go cross-check (JSON on stdout)")
    c.add_argument("request")
    s = sub.add_parser("show", help="an export's architecture and tensors, and the logits of some tokens")
    s.add_argument("file")
    s.add_argument("tokens", nargs="*", type=int)
    b = sub.add_parser("bench", help="training / forward-only speed (RESULT / EVAL lines)")
    b.add_argument("--layers", type=int, default=2)
    b.add_argument("--d-model", type=int, default=64)
    b.add_argument("--heads", type=int, default=4)
    b.add_argument("--d-ff", type=int, default=256)
    b.add_argument("--vocab", type=int, default=16)
    b.add_argument("--seq", type=int, default=64)
    b.add_argument("--batch", type=int, default=32)
    b.add_argument("--steps", type=int, default=200)
    b.add_argument("--warmup", type=int, default=10)
    b.add_argument("--pos", choices=["sinusoidal", "rope", "learned", "none", "alibi", "t5", "kerple", "fire"], default="sinusoidal")
    b.add_argument("--max-pos", type=int, default=128, help="learned position table rows")
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--lr", type=float, default=1e-3)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--eval", action="store_true", help="forward-only throughput at --eval-seqs")
    b.add_argument("--eval-iters", type=int, default=20)
    b.add_argument("--eval-seqs", default="64,128,256,512", help="comma-separated forward-only sequence lengths")
    a = ap.parse_args()
    try:
        if a.cmd == "check":
            check(a.request)
        elif a.cmd == "show":
            show(a.file, a.tokens)
        else:
            bench(a)
    except OSError as e:  # a missing or unreadable file: one line, exit status 1
        sys.exit(f"{ap.prog} {a.cmd}: {e.filename or ''}: {e.strerror or e}".replace(": : ", ": "))
    except ValueError as e:  # a file or argument that is not what the command reads
        sys.exit(f"{ap.prog} {a.cmd}: {e}")


if __name__ == "__main__":
    main()
