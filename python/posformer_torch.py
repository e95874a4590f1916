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

  The whole header is checked first (check_export: the safetensors rules, then the metadata
  against the tensors); a file that breaks a rule raises ExportError, one line naming the file
  and the tensor or field, before any module is built. A scheme added to the model classes needs
  its entry in SCHEMES (its options' checks and its tensors).

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
          (relative: ((q + u) k^T + (q + v) W_R R) / sqrt(dh)) + bias (alibi, t5, kerple,
          fire) + causal mask;
          softmax over keys; heads concatenated; x Wo + bo.
    LayerNorm: biased variance, eps 1e-5.  GELU: exact, x * Phi(x).

Position schemes (docs/schemes.md):
    sinusoidal  PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = base^(-2i/D)
    learned     a table [max_positions, D], row p added at position p
    rope        RoFormer: pair (2i, 2i+1) of the first d_rot = round(dh * rotary_fraction) values
                of each head turned by p * theta_i, theta_i = base^(-2i/d_rot); beyond the
                training length L_train (T > L_train, s = T/L_train) rope_scaling interpolate
                uses p/s (Chen et al. 2023), ntk uses base * s^(d_rot/(d_rot-2)), dynamic_ntk
                base * (a*s - (a-1))^(d_rot/(d_rot-2)) with a = rope_factor (Hugging Face's
                _compute_dynamic_ntk_parameters), yarn blends theta_i/s and theta_i per pair
                between the beta_fast = 32 / beta_slow = 1 turns over L_train and multiplies cos
                and sin by 0.1 ln s + 1 (jquesnelle/yarn LlamaDynamicYaRNScaledRotaryEmbedding)
    none        nothing (NoPE)
    alibi       Press et al. 2022: + m_h (j - i) for keys j <= i; bidirectional, Ruoss et al.'s
                -m_h |i - j| + m_h/2 for keys j < i (symmetric: no m_h/2); the slopes of the
                paper's reference code; randomized: the distance d read as the drawn r_d
    relative    Dai et al. 2019 (Transformer-XL): per layer u, v, W_R; R sin then cos of i - j
    t5          Raffel et al. 2020: + b[h, bucket(j - i)], T5's relative_position_bucket
    kerple      Chi et al. 2022 (log): - r1_h log(1 + r2_h |i - j|), r = 0.01 + softplus(rho)
    fire        Li et al. 2024: MLP(psi(i - j) / psi(max(L, i)))_h, psi(x) = log(|c| x + 1); causal
    abacus      McLeish et al. 2024: a table [max_positions, D], row p added at a digit of place p
                in its number (its run of digit tokens, counted from 1), row 0 at any other token
    coupled     Cho et al. 2024: a table [max_position + 1, D], row 1 + p (row 1 at a non-digit)
    randomized  (Ruoss et al. 2023) the absolute and rotary schemes at given positions: pass them;
                alibi and relative read distances from them (0, r_1 < r_2 < ...).
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
import stat
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
EXPORT_VERSIONS = ("1", "2")  # 2: unscaled_logits (export.VersionUnscaled)
DTYPES = {"float32": torch.float32, "float64": torch.float64}
SAFETENSORS_DTYPES = {"F32": torch.float32, "F64": torch.float64}


# ---------------------------------------------------------------- safetensors

class ExportError(ValueError):
    """A file that is not a sound posformer export: its message is one line naming the file, the
    tensor or metadata field at fault and what to do. Raised before anything the file describes is
    allocated (the header is read and checked whole first)."""


REEXPORT = "export the run again (train export RUN_DIR -force)"
NOT_EXPORT = "give the model.safetensors that `train export RUN_DIR` wrote"
TWINLESS = "add it to python/posformer_torch.py (docs/export.md)"  # the fix for a scheme this module lacks
MAX_HEADER = 100_000_000  # bytes: the limit of the safetensors reference implementation
DTYPE_SIZES = {"F32": 4, "F64": 8}  # the dtypes posformer writes (SAFETENSORS_DTYPES)


def _bad(path, where, what, fix=REEXPORT):
    return ExportError(f"{path}: {where}: {what}; {fix}")


class _Object(dict):
    """A JSON object that remembers the keys it held more than once (json keeps the last)."""

    def __init__(self, pairs):
        super().__init__(pairs)
        seen = set()
        self.twice = [k for k, _ in pairs if k in seen or seen.add(k)]


def _json_kind(v):
    return {dict: "an object", _Object: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def _parse_json(text, path, where, fix=REEXPORT):
    """JSON text -> value with _Object objects; NaN, Infinity and nesting too deep are refused."""
    def constant(c):
        raise ValueError(f"{c} is not JSON")
    try:
        return json.loads(text, object_pairs_hook=_Object, parse_constant=constant)
    except RecursionError:
        raise _bad(path, where, "not JSON (nested too deep)", fix) from None
    except ValueError as e:  # json.JSONDecodeError, and an integer of too many digits
        raise _bad(path, where, f"not JSON ({e})", fix) from None


def _object(v, path, where, fix=REEXPORT):
    """v if it is a JSON object without repeated keys."""
    if not isinstance(v, _Object):
        raise _bad(path, where, f"{_json_kind(v)}, not a JSON object", fix)
    if v.twice:
        raise _bad(path, where, f"key {json.dumps(v.twice[0])} appears twice (a reader would silently keep one)", fix)
    return v


def _is_int(v):
    return type(v) is int  # JSON 1.0 is a float and true a bool, neither is an integer here


class Entry:
    """One tensor of a safetensors header: dtype, shape and [begin, end) in the data section."""

    def __init__(self, dtype, shape, begin, end):
        self.dtype, self.shape, self.begin, self.end = dtype, shape, begin, end


class Header:
    """A safetensors header checked by the format's rules: entries (name -> Entry, in the header's
    order), meta (the __metadata__ strings, {} without), and where the data section lies."""

    def __init__(self, path, entries, meta, data_start, data_len):
        self.path, self.entries, self.meta = path, entries, meta
        self.data_start, self.data_len = data_start, data_len


def _open_regular(path):
    """path opened for reading if it is a regular file: a FIFO, device or directory is refused at
    once (O_NONBLOCK: opening a FIFO without a writer does not wait)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ExportError(f"{path}: not a regular file (a directory, FIFO or device); {NOT_EXPORT}")
    return os.fdopen(fd, "rb")


def read_header(path):
    """Reads and checks the header of a .safetensors file, and nothing past it. The format: an
    8-byte little-endian header length N (the header must fit in the file), N bytes of UTF-8 JSON,
    an object {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}},
    then the data section: the raw little-endian tensors, [begin, end) counted from its start.
    Every rule is checked: known dtypes, shapes of non-negative integers, offsets non-negative
    integers with begin <= end and end - begin = prod(shape) x the dtype's size, the tensors in
    offset order neither overlapping nor leaving a gap, and covering the data section exactly; no
    key twice. A broken rule raises ExportError naming the file and the tensor or field."""
    if sys.byteorder != "little":
        raise RuntimeError("posformer_torch reads safetensors on little-endian machines only")
    with _open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(8)
        n = int.from_bytes(head, "little")
        if len(head) < 8 or n > size - 8:
            raise ExportError(f"{path}: not a safetensors file (its {size} bytes do not hold the header they announce); {NOT_EXPORT}")
        if n > MAX_HEADER:
            raise _bad(path, "header", f"{n} bytes, more than the {MAX_HEADER} the safetensors format allows", NOT_EXPORT)
        raw = f.read(n)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ExportError(f"{path}: not a safetensors file (header: not UTF-8: {e}); {NOT_EXPORT}") from None
    header = _parse_json(text, path, "header", NOT_EXPORT)
    if isinstance(header, _Object) and header.twice:
        name = header.twice[0]
        raise _bad(path, name if name == "__metadata__" else f"tensor {name}", "appears twice in the header (a reader would silently keep one)")
    header = _object(header, path, "header", NOT_EXPORT)
    meta = {}
    entries = {}
    for name, info in header.items():
        if name == "__metadata__":
            meta = _object(info, path, "__metadata__")
            for k, v in meta.items():
                if not isinstance(v, str):
                    raise _bad(path, f"__metadata__ {k}", f"{_json_kind(v)}, not a string (the format's metadata maps strings to strings)")
            continue
        entries[name] = _entry(path, name, info)
    data_len = size - 8 - n
    _check_layout(path, entries, data_len)
    return Header(path, entries, meta, 8 + n, data_len)


def _entry(path, name, info):
    """The Entry of one tensor's header object, checked on its own."""
    where = f"tensor {name}"
    info = _object(info, path, where)
    for key in ("dtype", "shape", "data_offsets"):
        if key not in info:
            raise _bad(path, where, f"no {key}")
    dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if dtype not in DTYPE_SIZES:
        raise _bad(path, where, f"dtype {json.dumps(dtype)}: this module reads {' or '.join(DTYPE_SIZES)}, the dtypes posformer writes")
    if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
        raise _bad(path, where, f"shape {json.dumps(shape)}: not an array of non-negative integers")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_int(o) and o >= 0 for o in offsets)):
        raise _bad(path, where, f"data_offsets {json.dumps(offsets)}: not two non-negative integers [begin, end]")
    begin, end = offsets
    if begin > end:
        raise _bad(path, where, f"data_offsets [{begin}, {end}]: begins after it ends")
    nbytes = math.prod(shape) * DTYPE_SIZES[dtype]
    if end - begin != nbytes:
        raise _bad(path, where, f"shape {shape} of {dtype} is {nbytes} bytes but data_offsets [{begin}, {end}] hold {end - begin}")
    return Entry(dtype, shape, begin, end)


def _check_layout(path, entries, data_len):
    """The tensors, in offset order, tile the data section: no overlap, no gap, nothing after."""
    at, prev = 0, None
    for name, e in sorted(entries.items(), key=lambda kv: (kv[1].begin, kv[1].end, kv[0])):
        if e.begin < at:
            raise _bad(path, f"tensor {name}", f"data_offsets [{e.begin}, {e.end}] overlap those of tensor {prev} (up to byte {at})")
        if e.begin > at:
            raise _bad(path, f"tensor {name}", f"data_offsets [{e.begin}, {e.end}] leave bytes {at}..{e.begin} of the data to no tensor")
        if e.end > data_len:
            raise _bad(path, f"tensor {name}", f"ends at byte {e.end} of the data, which has {data_len}: the file is truncated")
        at, prev = e.end, name
    if at != data_len:
        raise _bad(path, "data", f"{data_len} bytes, but the tensors end at byte {at}: the last {data_len - at} belong to no tensor")


def read_tensors(header):
    """The tensors of a checked header, read from its file: name -> tensor of its shape."""
    with _open_regular(header.path) as f:
        f.seek(header.data_start)
        data = f.read(header.data_len)
    if len(data) != header.data_len:
        raise _bad(header.path, "data", f"{len(data)} bytes where the header announced {header.data_len}: the file changed while it was read")
    tensors = {}
    for name, e in header.entries.items():
        dt = SAFETENSORS_DTYPES[e.dtype]
        t = torch.frombuffer(bytearray(data[e.begin:e.end]), dtype=dt) if e.end > e.begin else torch.empty(0, dtype=dt)
        tensors[name] = t.reshape(e.shape)
    return tensors


def read_safetensors(path):
    """Reads a .safetensors file (read_header's rules): (name -> tensor, metadata dict)."""
    header = read_header(path)
    return read_tensors(header), header.meta


# ---------------------------------------------------------------- position schemes

class Scheme(nn.Module):
    """A position scheme: each hook defaults to doing nothing."""

    def embed(self, x, pos):
        """x [B, T, D], pos [B, T] (int64): the embeddings with position information added."""
        return x

    def token_positions(self, tokens):
        """tokens [B, T] -> the positions [B, T] a scheme reads from the tokens (abacus,
        coupled), or None: 0..T-1."""
        return None

    def rotate(self, q, k, pos, train_len):
        """q, k [B, H, T, dh]: rotated (rope)."""
        return q, k

    def bias(self, T, pos=None):
        """[H, T, T] (or [B, H, T, T]) added to the scaled logits (query i, key j), or None;
        pos [B, T] the positions (randomized distances), None for 0..T-1."""
        return None

    def relative(self, q, layer, pos):
        """q [B, H, T, dh] -> (the query of the content term, a position term [B, H, T, T] to add
        before the scale, or None)."""
        return q, None

    def scale_query(self, q, layer, causal):
        """q [B, H, T, dh] times s_h * ln n (log_scaling, SSMax; n the keys the query sees) when
        the scheme has its parameters logscale{layer} [H]; q otherwise."""
        s = getattr(self, f"logscale{layer}", None)
        if s is None:
            return q
        T = q.shape[2]
        n = torch.arange(1, T + 1, dtype=torch.float64) if causal else torch.full((T,), float(T), dtype=torch.float64)
        return q * (s.view(-1, 1, 1) * torch.log(n).to(q.dtype).view(1, T, 1))


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
    def __init__(self, head_dim, base, rotary_fraction, scaling, factor=0.0):
        super().__init__()
        rot = int(math.floor(head_dim * rotary_fraction + 0.5))  # round half up
        if rot % 2 or rot == 0:
            raise ValueError(f"rope: rotated dimension {rot} must be even and positive")
        self.rot, self.base, self.factor = rot, base, factor
        self.scaling = scaling if scaling in ("interpolate", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope") else None
        self.long = None  # longrope's per-pair factors (set by make_scheme)
        self.kept = rot // 2  # p_rope: the pairs that rotate (the others have frequency 0)
        self._cache = {}

    def rotation(self, T, train_len):
        """theta_i [rot/2] in float64, the position scale and the factor on cos and sin for a
        sequence of T tokens: rope_scaling acts beyond the training length only; p_rope's
        dropped pairs get theta 0."""
        theta, scale, m = self.scaled(T, train_len)
        if self.kept < self.rot // 2:
            theta = theta.clone()
            theta[self.kept:] = 0
        return theta, scale, m

    def scaled(self, T, train_len):
        i = torch.arange(self.rot // 2, dtype=torch.float64)
        d = self.rot
        if not (self.scaling and train_len > 0 and T > train_len):
            return self.base ** (-2.0 * i / d), 1.0, 1.0
        s = T / train_len
        if self.scaling == "interpolate":
            return self.base ** (-2.0 * i / d), 1.0 / s, 1.0
        if self.scaling in ("ntk", "dynamic_ntk"):
            grow = s if self.scaling == "ntk" else self.factor * s - (self.factor - 1)
            return (self.base * grow ** (d / (d - 2))) ** (-2.0 * i / d), 1.0, 1.0
        if self.scaling == "llama3":  # Llama 3.1: by wavelength, kept below L/4, /s above L, blended
            theta = self.base ** (-2.0 * i / d)
            wl = 2 * math.pi / theta
            a = (train_len / wl - 1) / (4 - 1)
            out = torch.where(wl > train_len, theta / s, theta)
            mid = (wl >= train_len / 4) & (wl <= train_len)
            return torch.where(mid, (1 - a) * theta / s + a * theta, out), 1.0, 1.0
        if self.scaling == "longrope":  # per-pair factors, cos and sin times sqrt(1 + ln s / ln L)
            theta = self.base ** (-2.0 * i / d) / torch.tensor(self.long, dtype=torch.float64)
            return theta, 1.0, (math.sqrt(1 + math.log(s) / math.log(train_len)) if train_len > 1 else 1.0)
        # yarn: the pair index that turns k times over train_len, the ramp between the
        # beta_fast = 32 and beta_slow = 1 bounds, theta/s below it and theta above
        def turns_dim(k):
            return d * math.log(train_len / (k * 2 * math.pi)) / (2 * math.log(self.base))
        low = max(math.floor(turns_dim(32)), 0)
        high = min(math.ceil(turns_dim(1)), d - 1)
        if low == high:
            high += 0.001
        keep = 1 - torch.clamp((i - low) / (high - low), 0, 1)
        theta = self.base ** (-2.0 * i / d)
        return theta / s * (1 - keep) + theta * keep, 1.0, 0.1 * math.log(s) + 1

    def angles(self, pos, theta, scale):
        """p * scale * theta_i in float64 for pos [..., T]: [..., T, rot/2]."""
        return (pos.to(torch.float64) * scale).unsqueeze(-1) * theta

    def tables(self, pos, T, train_len, dtype):
        theta, scale, m = self.rotation(T, train_len)
        if pos is None:
            key = (T, train_len, dtype)
            if key not in self._cache:
                a = self.angles(torch.arange(T), theta, scale)           # [T, rot/2]
                self._cache[key] = ((m * torch.cos(a)).to(dtype), (m * torch.sin(a)).to(dtype))
            return self._cache[key]
        a = self.angles(pos, theta, scale).unsqueeze(1)                    # [B, 1, T, rot/2]
        return (m * torch.cos(a)).to(dtype), (m * torch.sin(a)).to(dtype)

    def turn(self, x, cos, sin):
        r, rest = x[..., : self.rot], x[..., self.rot:]
        x0, x1 = r[..., 0::2], r[..., 1::2]                                # pair (2i, 2i+1)
        y = torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)
        return torch.cat((y, rest), dim=-1) if rest.shape[-1] else y

    def rotate(self, q, k, pos, train_len):
        cos, sin = self.tables(pos, q.shape[2], train_len, q.dtype)
        return self.turn(q, cos, sin), self.turn(k, cos, sin)


class XPos(RoPE):
    """xPos (Sun et al. 2023): rope whose pair i is scaled by zeta_i^((p - c)/gamma) in the
    queries and zeta_i^(-(p - c)/gamma) in the keys, zeta_i = (2i/dh + 0.4)/1.4, c = ceil(T/2)
    (torchscale's centred positions); causal only."""

    def __init__(self, head_dim, base, scale_base):
        super().__init__(head_dim, base, 1.0, "none")
        self.gamma = scale_base
        self.zeta = (2.0 * torch.arange(head_dim // 2, dtype=torch.float64) / head_dim + 0.4) / 1.4

    def rotate(self, q, k, pos, train_len):
        T = q.shape[2]
        p = torch.arange(T, dtype=torch.float64) if pos is None else pos.to(torch.float64).unsqueeze(1)
        e = (p - (T + 1) // 2) / self.gamma                                  # [T] or [B, 1, T]
        up = self.zeta ** e.unsqueeze(-1)                                    # [..., T, dh/2]
        cos, sin = self.tables(pos, T, train_len, torch.float64)
        cq, sq = (up * cos).to(q.dtype), (up * sin).to(q.dtype)
        ck, sk = (cos / up).to(k.dtype), (sin / up).to(k.dtype)
        return self.turn(q, cq, sq), self.turn(k, ck, sk)


class CoPE(Scheme):
    """CoPE (Golovneva et al. 2024), as facebookresearch/RAM's context_position.py: gates
    sigmoid(scaled masked logits), positions the reversed cumulative sum of the gates clamped to
    npos - 1, the logit adding q.e interpolated between floor and ceil; e [npos, dh] per layer.
    form "paper" adds q.e as it is (the paper's listing, q.k/sqrt(d) + q.e); "ram" scales it with
    q.k (the reference code's default, (q.k + q.e)/sqrt(d))."""

    def __init__(self, layers, npos, head_dim, form="paper"):
        super().__init__()
        self.npos, self.form = npos, form
        for l in range(layers):
            self.register_parameter(f"e{l}", nn.Parameter(torch.zeros(npos, head_dim)))

    def cope(self, q, logits, layer, scale):
        """q [B, H, T, dh], logits [B, H, T, T] scaled (by scale) and masked -> the term to add."""
        gates = torch.sigmoid(logits)
        pos = gates.flip(-1).cumsum(dim=-1).flip(-1).clamp(max=self.npos - 1)
        ceil, floor = pos.ceil().long(), pos.floor().long()
        l = torch.matmul(q, getattr(self, f"e{layer}").t())                  # [B, H, T, npos]
        if self.form == "ram":
            l = l * scale
        w = pos - floor
        return l.gather(-1, ceil) * w + l.gather(-1, floor) * (1 - w)


def alibi_slopes(n):
    """The slopes of Press et al.'s reference code (get_slopes)."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + alibi_slopes(2 * c)[0::2][: n - c]


def signed_distances(T, pos):
    """The distance of query i and key j, i - j ([T, T], float64), or with randomized distances
    (pos [B, T], pos[:, 0] = 0 < pos[:, 1] < ...: Ruoss et al.'s draw, the distance d read as
    pos[:, d]) sign(i - j) * pos[b, |i - j|] ([B, T, T])."""
    i = torch.arange(T).unsqueeze(1)
    d = i - torch.arange(T).unsqueeze(0)                             # [T, T], int64
    if pos is None:
        return d.to(torch.float64)
    p = pos.to(torch.float64) - pos[:, :1].to(torch.float64)         # [B, T]
    return torch.sign(d).to(torch.float64) * p[:, d.abs()]           # [B, T, T]


class ALiBi(Scheme):
    """Press et al. 2022; bidirectional, Ruoss et al.'s -m |i - j| + m/2 for keys before the query
    (symmetric: without the m/2); randomized (NOISY_ALIBI), the distances drawn per sequence."""

    def __init__(self, heads, bidirectional, symmetric=False, randomized=False):
        super().__init__()
        self.m = torch.tensor(alibi_slopes(heads), dtype=torch.float64)
        self.bidirectional, self.symmetric, self.randomized = bidirectional, symmetric, randomized

    def bias(self, T, pos=None):
        d = signed_distances(T, pos if self.randomized else None)   # i - j
        if self.bidirectional:
            b = -d.abs()
            if not self.symmetric:
                b = b + 0.5 * (d > 0).to(torch.float64)
        else:
            b = -d
        b = b.unsqueeze(-3) * self.m.view(-1, 1, 1)                 # [(B,) H, T, T], float64
        return b


class Relative(Scheme):
    """Transformer-XL's relative encoding (Dai et al. 2019), per layer l: the logit of query i
    and key j is ((q_i + u_l) k_j + (q_i + v_l) W_R,l R_{i-j}) / sqrt(dh), R_t = [sin(t w_k)...,
    cos(t w_k)...], w_k = base^(-2k/d); randomized: distance i - j read as sign * pos[|i - j|]."""

    def __init__(self, d, heads, layers, base, randomized):
        super().__init__()
        self.d, self.h, self.base, self.randomized = d, heads, base, randomized
        for l in range(layers):  # u{l}, v{l} [d] and wr{l} [d, d] (input x output) of layer l
            setattr(self, f"u{l}", nn.Parameter(torch.zeros(d)))
            setattr(self, f"v{l}", nn.Parameter(torch.zeros(d)))
            setattr(self, f"wr{l}", nn.Parameter(torch.zeros(d, d)))

    def relative(self, q, layer, pos):
        B, H, T, dh = q.shape
        delta = signed_distances(T, pos if self.randomized else None)          # [(B,) T, T]
        inv_freq = self.base ** (-torch.arange(0, self.d, 2, dtype=torch.float64) / self.d)
        angle = delta.unsqueeze(-1) * inv_freq                                 # [(B,) T, T, d/2]
        R = torch.cat([torch.sin(angle), torch.cos(angle)], dim=-1).to(q.dtype)   # [(B,) T, T, d]
        u, v, wr = (getattr(self, f"{n}{layer}") for n in ("u", "v", "wr"))
        keys = (R @ wr).unflatten(-1, (H, dh))                     # [(B,) T, T, H, dh]
        keys = keys.expand(B, T, T, H, dh)                                     # [B, T, T, H, dh]
        qv = q + v.view(H, 1, dh)                                  # [B, H, T, dh]
        term = torch.einsum("bhix,bijhx->bhij", qv, keys)                     # [B, H, T, T]
        return q + u.view(H, 1, dh), term


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

    def bias(self, T, pos=None):
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

    def bias(self, T, pos=None):
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

    def bias(self, T, pos=None):
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


class FoX(Scheme):
    """The Forgetting Transformer's forget gates (Lin et al. 2025; zhixuan-lin/forgetting-transformer,
    ForgettingAttentionLayer): per layer l, f_t = sigmoid(x_t w{l} + b{l}) [H] from the layer's
    normalised input; the logit of query i and key j gets c_i - c_j, c the cumulative sum of
    log f over the tokens (fla's naive_forgetting_attn). Causal only."""

    def __init__(self, d_model, heads, layers, bidirectional):
        super().__init__()
        if bidirectional:
            raise ValueError("fox is causal only (posformer refuses model.bidirectional with it)")
        for l in range(layers):  # w{l} [d_model, H] (input x output), b{l} [H]
            self.register_parameter(f"w{l}", nn.Parameter(torch.zeros(d_model, heads)))
            self.register_parameter(f"b{l}", nn.Parameter(torch.zeros(heads)))

    def decay(self, x, layer):
        """x [B, T, D] the layer's input -> the logit term c_i - c_j [B, H, T, T]."""
        g = x.to(torch.float64) @ getattr(self, f"w{layer}").to(torch.float64) + getattr(self, f"b{layer}").to(torch.float64)
        c = F.logsigmoid(g).cumsum(dim=1).transpose(1, 2)                    # [B, H, T]
        return (c.unsqueeze(-1) - c.unsqueeze(-2)).to(x.dtype)


class StickBreaking(Scheme):
    """Stick-breaking attention (Tan et al. 2025), as shawntan/stickbreaking-attention's sb_ref.py
    with its tests' o + rem * v: no softmax; A_ij = sigmoid(s_ij) prod_{j<k<i} sigmoid(-s_ik) over
    the keys j < i (j <= i, k <= i with attend_current), in log space; the remainder 1 - sum_j A_ij
    weighs the query's own value (remainder). Causal only."""

    def __init__(self, attend_current, remainder, bidirectional):
        super().__init__()
        if bidirectional:
            raise ValueError("stick_breaking is causal only (posformer refuses model.bidirectional with it)")
        self.attend_current, self.remainder = attend_current, remainder

    def attend(self, s, v):
        """s [B, H, T, T] the scaled logits (no mask), v [B, H, T, dh] -> the heads' outputs."""
        T = s.shape[-1]
        z = s.to(torch.float64)
        masked = torch.ones(T, T, dtype=torch.bool).triu(1 if self.attend_current else 0)
        log_z = F.logsigmoid(z).masked_fill(masked, -1e5)
        log_beta = F.logsigmoid(-z).masked_fill(masked, 0)
        re_cum = log_beta @ torch.ones(T, T, dtype=torch.float64).tril(-1)   # [i, k]: sum_{j>k} log_beta[i, j]
        att = torch.exp(log_z + re_cum)
        if self.remainder:
            att = att + torch.diag_embed(1 - att.sum(dim=-1))               # o + rem * v
        return torch.matmul(att.to(v.dtype), v)


class DPB(Scheme):
    """Dynamic position bias (x-transformers' DynamicPositionBias, log_distance=True): an MLP
    1 -> width (SiLU) -> ... -> H of sign(d) log(|d| + 1), d = i - j; theta holds W1 [width],
    b1 [width], per further hidden layer W [width, width] (input x output) and b [width], then
    W_out [width, H] and b_out [H]."""

    def __init__(self, heads, width, depth):
        super().__init__()
        self.h, self.w, self.depth = heads, width, depth
        self.theta = nn.Parameter(torch.zeros(2 * width + (depth - 1) * (width * width + width) + width * heads + heads))

    def bias(self, T, pos=None):
        th, W = self.theta.to(torch.float64), self.w
        i = torch.arange(T, dtype=torch.float64).unsqueeze(1)
        d = i - torch.arange(T, dtype=torch.float64).unsqueeze(0)              # [T, T]
        x = (torch.sign(d) * torch.log1p(d.abs())).unsqueeze(-1)              # [T, T, 1]
        h = F.silu(x * th[:W] + th[W: 2 * W])                                  # [T, T, width]
        at = 2 * W
        for _ in range(self.depth - 1):
            h = F.silu(h @ th[at: at + W * W].view(W, W) + th[at + W * W: at + W * W + W])
            at += W * W + W
        out = h @ th[at: at + W * self.h].view(W, self.h) + th[at + W * self.h:]
        return out.permute(2, 0, 1)                                              # [H, T, T]


def digit_places(tokens, digit0):
    """Each token's place within its maximal run of digit tokens (digit0 .. digit0 + 9), counted
    from 1 at the run's first token (a number's least significant digit, numbers being written
    reversed), 0 for a token that is not a digit: McLeish et al.'s Abacus positions
    (mcleish7/arithmetic, abacus.py). tokens [B, T] -> [B, T] int64."""
    digit = (tokens >= digit0) & (tokens < digit0 + 10)                  # [B, T]
    count = digit.long().cumsum(-1)                                      # digits up to each token
    before = torch.where(digit, torch.zeros_like(count), count).cummax(-1).values  # up to the last non-digit
    return count - before


class DigitTable(Scheme):
    """abacus (McLeish et al. 2024) and coupled (Cho et al. 2024): a learned table [rows, D]
    added to the token embeddings at positions read from the tokens: start + a digit's place
    within its number, start for any other token (abacus: start 0; coupled: 1, the start of an
    evaluation; training's random offsets do not apply to a trained model). Positions passed to
    the model are taken as the table's rows."""

    def __init__(self, kind, rows, d, digit0, start, rows_key):
        super().__init__()
        self.kind, self.digit0, self.start, self.rows_key = kind, digit0, start, rows_key
        self.table = nn.Parameter(torch.randn(rows, d))

    def token_positions(self, tokens):
        pos = digit_places(tokens, self.digit0) + self.start               # [B, T]
        rows = self.table.shape[0]
        if pos.numel() and int(pos.max()) >= rows:  # as posformer's TokenPositions: a ValueError naming the option
            n = int(pos.max()) - self.start
            raise ValueError(f"{self.rows_key}: the {self.kind} table has {rows} rows, but a number of {n} digits needs row {n + self.start}; "
                             f"give numbers of at most {rows - 1 - self.start} digits")
        return pos

    def embed(self, x, pos):
        rows = self.table.shape[0]
        if pos.numel() and not 0 <= int(pos.min()) <= int(pos.max()) < rows:
            raise ValueError(f"{self.rows_key}: the {self.kind} table has {rows} rows, positions {int(pos.min())}..{int(pos.max())} given; "
                             f"give positions in 0..{rows - 1}")
        return x + F.embedding(pos, self.table)


def make_scheme(kind, opt, d_model, heads, bidirectional, layers=1, digit0=None):
    """The scheme of a resolved position section, with log_scaling's parameters when on; digit0
    the token of digit 0 (posformer.model.digit0) for the schemes that read the tokens."""
    scheme = _make_scheme(kind, opt, d_model, heads, bidirectional, layers, digit0)
    if float(opt.get("log_scaling", 0)) > 0:
        for l in range(layers):
            scheme.register_parameter(f"logscale{l}", nn.Parameter(torch.full((heads,), float(opt["log_scaling"]))))
    return scheme


def _make_scheme(kind, opt, d_model, heads, bidirectional, layers=1, digit0=None):
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
        r = RoPE(d_model // heads, float(need("base")), float(need("rotary_fraction")), opt.get("rope_scaling", "none"),
                 float(opt.get("rope_factor", 0)))
        if r.scaling == "longrope":
            r.long = [float(x) for x in need("rope_long_factor").split(",")]
        return r
    if kind == "p_rope":
        r = RoPE(d_model // heads, float(need("base")), 1.0, "none")
        r.kept = int(float(need("p")) * (d_model // heads) // 2)
        return r
    if kind == "xpos":
        return XPos(d_model // heads, float(need("base")), float(need("scale_base")))
    if kind == "cope":
        return CoPE(layers, int(need("npos")), d_model // heads, opt.get("form", "paper"))  # exports before the option: paper
    if kind == "none":
        return Scheme()
    if kind == "alibi":
        return ALiBi(heads, bidirectional, bool(opt.get("symmetric", False)), bool(opt.get("randomized", False)))
    if kind == "relative":
        return Relative(d_model, heads, layers, float(need("base")), bool(opt.get("randomized", False)))
    if kind == "t5":
        return T5Bias(heads, int(need("num_buckets")), int(need("max_distance")), bidirectional)
    if kind == "kerple":
        return Kerple(heads, bidirectional)
    if kind == "fire":
        return FIRE(heads, int(need("mlp_width")), float(need("init_l")), bidirectional)
    if kind == "fox":
        return FoX(d_model, heads, layers, bidirectional)
    if kind == "stick_breaking":
        return StickBreaking(bool(opt.get("attend_current", False)), bool(need("remainder")), bidirectional)
    if kind == "dpb":
        return DPB(heads, int(need("mlp_width")), int(need("mlp_depth")))
    if kind in ("abacus", "coupled") and digit0 is None:
        raise ValueError(f"{kind} reads the digits of the tokens: give digit0, the token of digit 0 (posformer.model.digit0)")
    if kind == "abacus":
        return DigitTable("abacus", int(need("max_positions")), d_model, int(digit0), 0, "position.max_positions")
    if kind == "coupled":
        return DigitTable("coupled", int(need("max_position")) + 1, d_model, int(digit0), 1, "position.max_position")
    raise ValueError(f"position.kind {kind!r}: posformer_torch has no such scheme")


# ---------------------------------------------------------------- the model

class Block(nn.Module):
    def __init__(self, d, heads, d_ff, scaled=True, index=0):
        super().__init__()
        self.h, self.dh, self.index = heads, d // heads, index
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
        q = scheme.scale_query(q, self.index, mask is not None)
        q, term = scheme.relative(q, self.index, pos)                      # relative: q + u, (q + v) W_R R
        s = torch.matmul(q, k.transpose(-2, -1))                           # [B, H, T, T]
        if term is not None:
            s = s + term
        s = s * self.scale
        if bias is not None:
            s = s + bias
        if isinstance(scheme, FoX):
            s = s + scheme.decay(x, self.index)                            # forget gates from the layer's input
        if isinstance(scheme, StickBreaking):                              # no softmax: it masks itself
            return self.o(scheme.attend(s, v).transpose(1, 2).reshape(B, T, D))
        if mask is not None:
            s = s + mask
        if isinstance(scheme, CoPE):
            s = s + scheme.cope(q, s, self.index, self.scale)
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
        self.scheme = make_scheme(pos.get("kind", "sinusoidal"), pos, D, H, self.bidirectional, arch["layers"], arch.get("digit0"))
        scaled = not arch.get("unscaled_logits", False)
        self.blocks = nn.ModuleList(Block(D, H, arch["d_ff"], scaled, i) for i in range(arch["layers"]))
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
        (randomized positions), default 0..T-1 (abacus and coupled: read from the tokens' digits,
        positions given are their table's rows); t5, kerple and fire use token indices, randomized
        alibi and relative read the distances from them."""
        T = tokens.shape[1]
        x = F.embedding(tokens, self.tok_emb)                             # [B, T, D]
        if positions is None:
            positions = self.scheme.token_positions(tokens)               # abacus, coupled: from the digits
        x = self.scheme.embed(x, positions)
        bias = self.scheme.bias(T, positions)
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


# ---------------------------------------------------------------- loading an export

ROPE_SCALINGS = ("none", "interpolate", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope")  # position.rope_scaling values the RoPE class computes
MAX_FIRE_WIDTH = 4096  # position.mlp_width: the widest FIRE MLP posformer builds
MAX_RANDOM_LIMIT = 1 << 17  # position.max_random: the most positions posformer samples from (position.MaxRandomLimit)
# Per position.kind, the options posformer writes in its position section (position.Options),
# and the kinds that take randomized positions (position.Randomizable) with their three keys.
SCHEME_OPTIONS = {
    "sinusoidal": ("base",), "learned": ("max_positions", "init_std"),
    "rope": ("base", "rotary_fraction", "rope_scaling", "rope_factor", "rope_long_factor"), "none": (), "alibi": ("symmetric",),
    "relative": ("base",), "t5": ("num_buckets", "max_distance", "init_std"), "kerple": (),
    "fire": ("mlp_width", "init_c", "init_l"), "p_rope": ("base", "p"), "xpos": ("base", "scale_base"),
    "cope": ("npos", "init_std", "form"), "fox": ("bias_init", "init_std"), "stick_breaking": ("attend_current", "remainder"),
    "dpb": ("mlp_width", "mlp_depth"), "abacus": ("max_offset", "max_positions", "init_std"), "coupled": ("max_position", "init_std"),
}
RANDOMIZABLE = ("sinusoidal", "learned", "rope", "alibi", "relative", "p_rope")
RANDOMIZED_KEYS = ("randomized", "max_random", "eval_positions")


class _Fields:
    """Reads the typed fields of one JSON object of the metadata (posformer.model or its position
    section), each refused with its name (posformer.model.FIELD) when missing or out of range."""

    def __init__(self, path, prefix, obj):
        self.path, self.prefix, self.obj = path, prefix, obj

    def bad(self, key, what):
        return _bad(self.path, self.prefix + key, what)

    def get(self, key, default):
        if key in self.obj:
            return self.obj[key]
        if default is None:
            raise self.bad(key, "missing")
        return default

    def int(self, key, lo, default=None):
        v = self.get(key, default)
        if not _is_int(v):
            raise self.bad(key, f"{json.dumps(v)} is not an integer")
        if v < lo:
            raise self.bad(key, f"must be at least {lo}, got {v}")
        return v

    def float(self, key, above, at_most=None, default=None):
        v = self.get(key, default)
        if not (_is_int(v) or type(v) is float) or not math.isfinite(v):
            raise self.bad(key, f"{json.dumps(v)} is not a finite number")
        if not v > above or (at_most is not None and v > at_most):
            raise self.bad(key, f"must be in ({above}, {at_most}], got {v}" if at_most is not None else f"must be greater than {above}, got {v}")
        return float(v)

    def bool(self, key, default=None):
        v = self.get(key, default)
        if type(v) is not bool:
            raise self.bad(key, f"{json.dumps(v)} is not true or false")
        return v

    def choice(self, key, choices, default=None):
        v = self.get(key, default)
        if v not in choices:
            raise self.bad(key, f"{json.dumps(v)}: this module knows {', '.join(choices)}")
        return v


def _check_sinusoidal(f, a):
    f.float("base", above=1)
    if a["d_model"] % 2:
        raise _bad(f.path, "posformer.model.d_model", f"sinusoidal encodings pair sin and cos, so d_model must be even, got {a['d_model']}")


def _check_rope(f, a):
    f.float("base", above=1)
    frac = f.float("rotary_fraction", above=0, at_most=1)
    dh = a["d_model"] // a["heads"]
    rot = int(math.floor(dh * frac + 0.5))
    if rot % 2 or rot == 0:
        raise f.bad("rotary_fraction", f"d_head {dh} x {frac} rotates {rot} dimensions, which must be even and positive")
    scaling = f.choice("rope_scaling", ROPE_SCALINGS, default="none")
    if scaling != "none" and f.obj.get("randomized") is True:
        raise f.bad("rope_scaling", f"{scaling} with randomized positions, which posformer refuses (they already cover [0, max_random))")
    if scaling != "none" and a["train_len"] == 0:
        raise _bad(f.path, "posformer.model.train_len", f"0, but rope_scaling {scaling} acts past the training length, so it needs one")
    if scaling in ("ntk", "dynamic_ntk") and rot <= 2:
        raise f.bad("rope_scaling", f"{scaling} needs more than 2 rotated dimensions per head, got {rot}")
    if scaling == "dynamic_ntk":
        f.float("rope_factor", above=0)  # posformer refuses a factor below 1 before it exports
    elif "rope_factor" in f.obj:
        raise f.bad("rope_factor", "only rope_scaling dynamic_ntk takes a factor")


def _check_alibi(f, a):
    if f.bool("symmetric", default=False) and not a["bidirectional"]:
        raise f.bad("symmetric", "true on a causal model: it applies to an encoder (posformer.model.bidirectional) only")


def _check_options(f, a, kind):
    """Every key of the position section is an option of its kind (or, for a kind that takes
    them, of randomized positions), and randomized positions are checked as posformer checks
    them: a boolean, max_random in [max(2, train_len), MAX_RANDOM_LIMIT], eval_positions random
    or plain. A kind added to SCHEMES lists its options in SCHEME_OPTIONS."""
    known = ("kind", "log_scaling") + SCHEME_OPTIONS.get(kind, tuple(f.obj)) + (RANDOMIZED_KEYS if kind in RANDOMIZABLE else ())
    for key in f.obj:
        if key not in known:
            what = f"not an option of {kind} (it has {', '.join(known[1:]) or 'none'})"
            if key in RANDOMIZED_KEYS:
                what = f"{kind} takes no randomized positions (only {', '.join(RANDOMIZABLE)} do)"
            raise f.bad(key, what)
    if kind not in RANDOMIZABLE or not f.bool("randomized", default=False):
        for key in ("max_random", "eval_positions"):
            if key in f.obj:
                raise f.bad(key, "given without randomized: true, which it belongs to")
        return
    lo = max(2, a["train_len"])
    if f.int("max_random", lo=lo) > MAX_RANDOM_LIMIT:
        raise f.bad("max_random", f"{f.obj['max_random']} is more than {MAX_RANDOM_LIMIT}, the most positions posformer samples from")
    f.choice("eval_positions", ("random", "plain"))


def _check_t5(f, a):
    per_dir = f.int("num_buckets", lo=4 if a["bidirectional"] else 2)
    if a["bidirectional"]:
        per_dir //= 2
    f.int("max_distance", lo=per_dir // 2 + 1)


def _check_relative(f, a):
    f.float("base", above=1)
    if a["d_model"] % 2:
        raise _bad(f.path, "posformer.model.d_model", f"relative encodings pair sin and cos, so d_model must be even, got {a['d_model']}")


def _relative_tensors(o, a):
    d = ("d_model", a["d_model"])
    return [(f"pos.relative.{n}.{l}", f"{n}{l}", [d, d] if n == "wr" else [d]) for l in range(a["layers"]) for n in ("u", "v", "wr")]


def _check_fire(f, a):
    if f.int("mlp_width", lo=1) > MAX_FIRE_WIDTH:
        raise f.bad("mlp_width", f"{f.obj['mlp_width']} is more than {MAX_FIRE_WIDTH}, the widest MLP posformer builds")
    f.float("init_c", above=0)
    f.float("init_l", above=0)
    if a["bidirectional"]:
        raise _bad(f.path, "posformer.model.bidirectional", "true, but fire is causal only")


def _check_digits(rows_key, lo):
    """The checks of a scheme that reads positions from the tokens' digits (abacus, coupled):
    its table's option, and posformer.model.digit0, the token of digit 0, with the ten digits
    inside the vocabulary."""
    def check(f, a):
        f.int(rows_key, lo=lo)
        if f.obj["kind"] == "abacus":
            f.int("max_offset", lo=0)
        d0 = _Fields(f.path, "posformer.model.", a).int("digit0", lo=0)
        if d0 + 10 > a["vocab"]:
            raise _bad(f.path, "posformer.model.digit0", f"{d0}, but the digits {d0}..{d0 + 9} do not fit in the vocabulary of {a['vocab']}")
    return check


def _check_rope_scalings(f, a):
    """rope's checks, and longrope's per-pair factors: d_rot/2 positive numbers."""
    _check_rope(f, a)
    dh = a["d_model"] // a["heads"]
    rot = int(math.floor(dh * f.obj["rotary_fraction"] + 0.5))
    long = f.obj.get("rope_long_factor")
    if f.obj.get("rope_scaling") == "longrope":
        try:
            ok = long is not None and len(long.split(",")) == rot // 2 and all(0 < float(x) < math.inf for x in long.split(","))
        except (AttributeError, ValueError):
            ok = False
        if not ok:
            raise f.bad("rope_long_factor", f"longrope needs {rot // 2} positive factors separated by commas, got {json.dumps(long)}")
    elif long is not None:
        raise f.bad("rope_long_factor", "only rope_scaling longrope takes per-pair factors")


def _check_p_rope(f, a):
    f.float("base", above=1)
    p = f.float("p", above=0, at_most=1)
    dh = a["d_model"] // a["heads"]
    if dh % 2 or int(p * dh // 2) < 1:
        raise f.bad("p", f"{p} keeps no pair of d_head {dh}")


def _check_xpos(f, a):
    f.float("base", above=1)
    f.float("scale_base", above=0)
    if (a["d_model"] // a["heads"]) % 2:
        raise _bad(f.path, "posformer.model.d_model", "xpos rotates pairs: d_head must be even")
    if a["bidirectional"]:
        raise _bad(f.path, "posformer.model.bidirectional", "true, but xpos is causal only")


def _check_cope(f, a):
    f.int("npos", lo=2)
    f.choice("form", ("paper", "ram"), default="paper")  # an export from before the option: paper
    if a["bidirectional"]:
        raise _bad(f.path, "posformer.model.bidirectional", "true, but cope is causal only")


def _check_fox(f, a):
    v = f.get("bias_init", None)
    if not (_is_int(v) or type(v) is float) or not abs(v) <= 100:
        raise f.bad("bias_init", f"{json.dumps(v)} is not a number in [-100, 100]")
    v = f.get("init_std", None)
    if not (_is_int(v) or type(v) is float) or not 0 <= v <= 1000:
        raise f.bad("init_std", f"{json.dumps(v)} is not a number in [0, 1000]")
    if a["bidirectional"]:
        raise _bad(f.path, "posformer.model.bidirectional", "true, but fox is causal only")


def _check_stick_breaking(f, a):
    f.bool("attend_current", default=False)
    f.bool("remainder")
    if a["bidirectional"]:
        raise _bad(f.path, "posformer.model.bidirectional", "true, but stick_breaking is causal only")


def _check_dpb(f, a):
    if f.int("mlp_width", lo=1) > MAX_FIRE_WIDTH:
        raise f.bad("mlp_width", f"{f.obj['mlp_width']} is more than {MAX_FIRE_WIDTH}, the widest MLP posformer builds")
    if f.int("mlp_depth", lo=1) > 16:
        raise f.bad("mlp_depth", f"{f.obj['mlp_depth']} is more than 16, the deepest MLP posformer builds")


def _dpb_size(o, a):
    w, depth = o["mlp_width"], o["mlp_depth"]
    return 2 * w + (depth - 1) * (w * w + w) + w * a["heads"] + a["heads"]


# Per position.kind: the checks of its options (a _Fields of the position section and the
# checked architecture), and its tensors: (name, attribute of the scheme module, shape as
# (what sets the size, size) pairs). A scheme the model classes gain needs its entry here.
SCHEMES = {
    "sinusoidal": (_check_sinusoidal, lambda o, a: []),
    "learned": (lambda f, a: f.int("max_positions", lo=1),
                lambda o, a: [("pos.learned.table", "table", [("position.max_positions", o["max_positions"]), ("d_model", a["d_model"])])]),
    "rope": (_check_rope_scalings, lambda o, a: []),
    "p_rope": (_check_p_rope, lambda o, a: []),
    "xpos": (_check_xpos, lambda o, a: []),
    "cope": (_check_cope, lambda o, a: [(f"pos.cope.e.{l}", f"e{l}", [("position.npos", o["npos"]), ("d_head", a["d_model"] // a["heads"])])
                                      for l in range(a["layers"])]),
    "none": (lambda f, a: None, lambda o, a: []),
    "alibi": (lambda f, a: _check_alibi(f, a), lambda o, a: []),
    "relative": (_check_relative, _relative_tensors),
    "t5": (_check_t5, lambda o, a: [("pos.t5.bias", "table", [("heads", a["heads"]), ("position.num_buckets", o["num_buckets"])])]),
    "kerple": (lambda f, a: None, lambda o, a: [("pos.kerple.rho", "rho", [("2·heads", 2 * a["heads"])])]),
    "fox": (_check_fox, lambda o, a: [t for l in range(a["layers"]) for t in (
        (f"pos.fox.w.{l}", f"w{l}", [("d_model", a["d_model"]), ("heads", a["heads"])]), (f"pos.fox.b.{l}", f"b{l}", [("heads", a["heads"])]))]),
    "stick_breaking": (_check_stick_breaking, lambda o, a: []),
    "dpb": (_check_dpb, lambda o, a: [("pos.dpb.theta", "theta", [(
        "2·mlp_width + (mlp_depth − 1)·(mlp_width² + mlp_width) + mlp_width·heads + heads", _dpb_size(o, a))])]),
    "fire": (_check_fire, lambda o, a: [("pos.fire.theta", "theta", [(
        "2·mlp_width + mlp_width·heads + heads + 2", (2 + a["heads"]) * o["mlp_width"] + a["heads"] + 2)])]),
    "abacus": (_check_digits("max_positions", 2), lambda o, a: [("pos.abacus.table", "table", [("position.max_positions", o["max_positions"]), ("d_model", a["d_model"])])]),
    "coupled": (_check_digits("max_position", 1), lambda o, a: [("pos.coupled.table", "table", [("position.max_position + 1", o["max_position"] + 1), ("d_model", a["d_model"])])]),
}

def _with_log_scaling(tensors):
    """A scheme's tensor list plus log_scaling's s [H] per layer when the option is on."""
    def both(o, a):
        extra = []
        if float(o.get("log_scaling", 0)) > 0:
            extra = [(f"pos.logscale.s.{l}", f"logscale{l}", [("heads", a["heads"])]) for l in range(a["layers"])]
        return tensors(o, a) + extra
    return both


SCHEMES = {kind: (check, _with_log_scaling(tensors)) for kind, (check, tensors) in SCHEMES.items()}

BLOCK_TENSORS = 16  # tensors per block (expected_tensors)


def check_arch(header):
    """The architecture of a checked header's posformer.model, every field checked (version,
    types, ranges, the position scheme's options) before anything is built."""
    path, meta = header.path, header.meta
    if "posformer.model" not in meta:
        raise _bad(path, "__metadata__", "no posformer.model: not a file `train export RUN_DIR` wrote", NOT_EXPORT)
    version = meta.get("posformer.export_version")
    if version not in EXPORT_VERSIONS:
        raise _bad(path, "__metadata__ posformer.export_version", f"{json.dumps(version)}, this module reads {', '.join(EXPORT_VERSIONS)}",
                   "load it with the posformer_torch.py of the posformer that exported it")
    arch = _object(_parse_json(meta["posformer.model"], path, "posformer.model"), path, "posformer.model")
    f = _Fields(path, "posformer.model.", arch)
    for key in ("vocab", "d_model", "heads", "layers", "d_ff"):
        f.int(key, lo=2 if key == "vocab" else 1)
    if arch["d_model"] % arch["heads"]:
        raise f.bad("heads", f"{arch['heads']} heads do not divide d_model {arch['d_model']}")
    f.choice("dtype", tuple(DTYPES))
    f.int("train_len", lo=0)
    f.bool("bidirectional")
    if f.bool("unscaled_logits", default=False) and version == "1":
        raise f.bad("unscaled_logits", "true in an export of version 1 (unscaled logits are version 2)")
    pos = _object(f.get("position", None), path, "posformer.model.position")
    pf = _Fields(path, "posformer.model.position.", pos)
    kind = pf.get("kind", None)
    if isinstance(kind, str) and kind not in SCHEMES:  # a scheme of posformer's that this module lacks: exporting again cannot help
        raise ExportError(f"{path}: posformer.model.position.kind: {json.dumps(kind)}: this scheme has no PyTorch twin "
                          f"(this module has {', '.join(SCHEMES)}): {TWINLESS}")
    kind = pf.choice("kind", tuple(SCHEMES))
    _check_options(pf, arch, kind)
    SCHEMES[kind][0](pf, arch)
    return arch


def _layers(n):
    return f"{n} layer" + ("" if n == 1 else "s")


def expected_tensors(arch):
    """name -> shape, as (what sets the size, size) pairs, of every tensor an export of arch
    holds (docs/export.md)."""
    d, v, f = ("d_model", arch["d_model"]), ("vocab", arch["vocab"]), ("d_ff", arch["d_ff"])
    out = {"tok_emb": [v, d]}
    pos = arch["position"]
    for name, _, shape in SCHEMES[pos["kind"]][1](pos, arch):
        out[name] = shape
    for i in range(arch["layers"]):
        p = f"block{i}."
        out.update({p + "ln1.gamma": [d], p + "ln1.beta": [d]})
        for n in "qkvo":
            out.update({p + "attn.w" + n: [d, d], p + "attn.b" + n: [d]})
        out.update({p + "ln2.gamma": [d], p + "ln2.beta": [d], p + "mlp.w1": [d, f], p + "mlp.b1": [f],
                    p + "mlp.w2": [f, d], p + "mlp.b2": [d]})
    out.update({"lnf.gamma": [d], "lnf.beta": [d], "head.w": [d, v], "head.b": [v]})
    return out


def check_export(path):
    """Reads and checks an export's header against its architecture: every tensor
    docs/export.md lists for it present in the model's dtype with the shape its sizes make,
    and no other. Returns (header, arch); nothing the file describes is allocated yet."""
    header = read_header(path)
    arch = check_arch(header)
    entries = header.entries
    blocks = {n.split(".", 1)[0] for n in entries if n.startswith("block")}
    if BLOCK_TENSORS * arch["layers"] > len(entries):
        raise _bad(path, "posformer.model.layers", f"{arch['layers']}, but the file holds the tensors of {len(blocks)} block{'' if len(blocks) == 1 else 's'}")
    tag = {"float32": "F32", "float64": "F64"}[arch["dtype"]]
    want = expected_tensors(arch)
    for name, shape in want.items():
        if name not in entries:
            raise _bad(path, f"tensor {name}", f"missing (posformer.model has {_layers(arch['layers'])}, position.kind {arch['position']['kind']})")
        e = entries[name]
        if e.dtype != tag:
            raise _bad(path, f"tensor {name}", f"dtype {e.dtype}, but posformer.model.dtype is {arch['dtype']} ({tag})")
        if e.shape != [n for _, n in shape]:
            sizes = ", ".join(f"{what} {n}" for what, n in shape)
            raise _bad(path, f"tensor {name}", f"shape {e.shape}, but posformer.model makes it [{sizes}]")
    if extra := sorted(set(entries) - set(want)):
        raise _bad(path, f"tensor {extra[0]}", f"not part of a {arch['position']['kind']} model of {_layers(arch['layers'])} (docs/export.md)")
    return header, arch


def load(path):
    """Builds the model an export describes and loads its weights; returns it in eval mode,
    in the export's dtype. The whole header is checked first (check_export): a file that breaks
    a rule raises ExportError before any module is built."""
    header, arch = check_export(path)
    tensors = read_tensors(header)
    m = Posformer(arch).to(DTYPES[arch["dtype"]])
    m.tok_emb.data = tensors["tok_emb"].clone()
    pos = arch["position"]
    for name, attr, _ in SCHEMES[pos["kind"]][1](pos, arch):
        getattr(m.scheme, attr).data = tensors[name].clone()
    for i, b in enumerate(m.blocks):
        p = f"block{i}."
        _norm(b.ln1, tensors[p + "ln1.gamma"], tensors[p + "ln1.beta"])
        for lin, n in ((b.q, "q"), (b.k, "k"), (b.v, "v"), (b.o, "o")):
            _linear(lin, tensors[p + "attn.w" + n], tensors[p + "attn.b" + n])
        _norm(b.ln2, tensors[p + "ln2.gamma"], tensors[p + "ln2.beta"])
        _linear(b.fc1, tensors[p + "mlp.w1"], tensors[p + "mlp.b1"])
        _linear(b.fc2, tensors[p + "mlp.w2"], tensors[p + "mlp.b2"])
    _norm(m.lnf, tensors["lnf.gamma"], tensors["lnf.beta"])
    _linear(m.head, tensors["head.w"], tensors["head.b"])
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
    header, arch = check_export(path)
    vocab = arch["vocab"]
    if bad := [t for t in tokens if not 0 <= t < vocab]:
        raise ValueError(f"{path}: tokens {bad}: outside the model's vocabulary 0..{vocab - 1}; give tokens below {vocab}")
    print("posformer.model:", header.meta["posformer.model"])
    for name, e in sorted(header.entries.items()):
        print(f"{name} {SAFETENSORS_DTYPES[e.dtype]} {e.shape}")
    if tokens:
        model = load(path)
        try:
            with torch.no_grad():
                logits = model(torch.tensor([tokens]))[0]
        except ValueError as e:  # what the tokens ask of the model (more than a learned table holds)
            raise ValueError(f"{path}: {e}") from None
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
    except ExportError as e:  # a file that is no sound export: its one line, exit status 1
        sys.exit(str(e))
    except OSError as e:  # a missing or unreadable file: one line, exit status 1
        sys.exit(f"{ap.prog} {a.cmd}: {e.filename or ''}: {e.strerror or e}".replace(": : ", ": "))
    except ValueError as e:  # a file or argument that is not what the command reads
        sys.exit(f"{ap.prog} {a.cmd}: {e}")


if __name__ == "__main__":
    main()
