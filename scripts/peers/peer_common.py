"""The parts of the peer runner (torch_peers.py) that need neither PyTorch nor a GPU: sweep files,
shapes, the FLOP convention, the timing statistics and stopping rule, tolerances, the memory
estimate of the math backend, and the JSON record. scripts/peers/test_runner_offline.py tests them.

Everything here mirrors the C++ side so peer records and `fa4-analyze bench` records agree:
  sweeps         lib/core/sweep.cpp   (same expansion order, same checks, same error paths)
  shape checks   lib/core/shape.cpp   validate()
  FLOPs          lib/core/shape.cpp   unmasked_pairs(), attention_flops()
  statistics     lib/core/stats.cpp   quantiles by linear interpolation
  stopping rule  lib/bench/timer.cpp  min/max samples, relative IQR target, time cap
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

SCHEMA = "fa4-peer/1"

# (kernel, source, SDPBackend member name or None for our Triton kernel). The names are fixed:
# the C++ side keys on them.
PEERS: List[Tuple[str, str, Optional[str]]] = [
    ("sdpa_flash", "peer:torch-flash", "FLASH_ATTENTION"),
    ("sdpa_cudnn", "peer:torch-cudnn", "CUDNN_ATTENTION"),
    ("sdpa_efficient", "peer:torch-efficient", "EFFICIENT_ATTENTION"),
    ("sdpa_math", "peer:torch-math", "MATH"),
    ("triton_fa", "peer:triton", None),
]
PEER_NAMES = [name for name, _, _ in PEERS]
PEER_SOURCE = {name: source for name, source, _ in PEERS}
PEER_BACKEND = {name: backend for name, _, backend in PEERS}

DTYPES = ("bf16", "fp16", "fp8")
MAX_ELEMENTS = 1 << 40  # lib/core/shape.cpp kMaxElements


class SweepError(Exception):
    """A sweep file that cannot be used; the message names the file and the JSON path."""


class UsageError(Exception):
    """A bad command-line argument; the message says what is wrong and how to fix it."""


# --------------------------------------------------------------------------------------------
# Shapes


@dataclass(frozen=True)
class Shape:
    batch: int
    heads_q: int
    heads_kv: int
    seqlen_q: int
    seqlen_k: int
    headdim: int
    headdim_v: int
    causal: bool
    dtype: str

    def to_json(self) -> Dict[str, Any]:
        return {
            "batch": self.batch,
            "heads_q": self.heads_q,
            "heads_kv": self.heads_kv,
            "seqlen_q": self.seqlen_q,
            "seqlen_k": self.seqlen_k,
            "headdim": self.headdim,
            "headdim_v": self.headdim_v,
            "causal": self.causal,
            "dtype": self.dtype,
        }

    @property
    def group(self) -> int:
        return self.heads_q // self.heads_kv

    def describe(self) -> str:
        """b4 h16 s4096 d128 causal bf16 (h32/8 for GQA, s1x8192 for seqlen_q != seqlen_k)."""
        heads = f"h{self.heads_q}" if self.heads_q == self.heads_kv else f"h{self.heads_q}/{self.heads_kv}"
        seq = (f"s{self.seqlen_q}" if self.seqlen_q == self.seqlen_k
               else f"s{self.seqlen_q}x{self.seqlen_k}")
        dim = f"d{self.headdim}" if self.headdim == self.headdim_v else f"d{self.headdim}/{self.headdim_v}"
        parts = [f"b{self.batch}", heads, seq, dim]
        if self.causal:
            parts.append("causal")
        parts.append(self.dtype)
        return " ".join(parts)


def validate_shape(s: Shape) -> Optional[str]:
    """lib/core/shape.cpp validate(): None when the shape is possible, else the reason."""
    sizes = [("batch", s.batch), ("heads", s.heads_q), ("heads-kv", s.heads_kv),
             ("seqlen-q", s.seqlen_q), ("seqlen-k", s.seqlen_k), ("headdim", s.headdim),
             ("headdim-v", s.headdim_v)]
    for name, value in sizes:
        if value <= 0:
            return f"impossible shape: {name} = {value}; every size must be a positive integer"
    if s.heads_q % s.heads_kv != 0:
        return (f"impossible shape: heads = {s.heads_q} is not divisible by heads-kv = {s.heads_kv}; "
                "GQA/MQA needs each KV head shared by a whole number of query heads")
    if s.headdim > 1024 or s.headdim_v > 1024:
        return f"impossible shape: headdim {s.headdim} / headdim-v {s.headdim_v} exceeds 1024"
    widest = max(s.headdim, s.headdim_v)
    if (s.batch * s.heads_q * s.seqlen_q * widest > MAX_ELEMENTS
            or s.batch * s.heads_kv * s.seqlen_k * widest > MAX_ELEMENTS):
        return (f"absurd shape: {s.describe()} has a tensor of more than 2^40 elements; "
                "reduce batch, heads or seqlen")
    return None


# --------------------------------------------------------------------------------------------
# Sweep files (lib/core/sweep.cpp)


def _is_int(value: Any) -> bool:
    # JSON true/false are not integers (Python's bool is an int subclass; nlohmann's is not).
    return isinstance(value, int) and not isinstance(value, bool)


def _positive_int(obj: Dict[str, Any], key: str, where: str) -> int:
    if key not in obj:
        raise SweepError(f"{where}/{key}: missing; expected a positive integer")
    value = obj[key]
    if not _is_int(value) or value <= 0:
        raise SweepError(f"{where}/{key}: expected a positive integer, got {json.dumps(value)}")
    return value


def _array_of(obj: Dict[str, Any], key: str, where: str) -> list:
    value = obj.get(key)
    if not isinstance(value, list) or not value:
        raise SweepError(f"{where}/{key}: expected a non-empty array")
    return value


def _dtype_of(obj: Dict[str, Any], where: str) -> str:
    if "dtype" not in obj:
        return "bf16"
    value = obj["dtype"]
    if not isinstance(value, str):
        raise SweepError(f'{where}/dtype: expected "bf16", "fp16" or "fp8"')
    if value not in DTYPES:
        raise SweepError(f"{where}/dtype: unknown dtype '{value}': use bf16, fp16 or fp8")
    return value


def _expand_grid(grid: Any, where: str) -> List[Shape]:
    if not isinstance(grid, dict):
        # The C++ side reports the first missing key of a non-object; say it plainly here.
        raise SweepError(f"{where}: expected an object with total_tokens, hidden, headdims, "
                         "seqlens, causal and dtype")
    tokens = _positive_int(grid, "total_tokens", where)
    hidden = _positive_int(grid, "hidden", where)
    dims = _array_of(grid, "headdims", where)
    seqlens = _array_of(grid, "seqlens", where)
    masks = _array_of(grid, "causal", where)
    dtype = _dtype_of(grid, where)
    shapes = []
    for i, d in enumerate(dims):  # headdim outermost, then seqlen, then causal: as sweep.cpp
        if not _is_int(d) or d <= 0 or hidden % d:
            raise SweepError(f"{where}/headdims/{i}: expected a positive integer dividing "
                             f"hidden = {hidden}")
        for j, s in enumerate(seqlens):
            if not _is_int(s) or s <= 0:
                raise SweepError(f"{where}/seqlens/{j}: expected a positive integer")
            for k, c in enumerate(masks):
                if not isinstance(c, bool):
                    raise SweepError(f"{where}/causal/{k}: expected true or false")
                heads = hidden // d
                shapes.append(Shape(batch=max(1, tokens // s), heads_q=heads, heads_kv=heads,
                                    seqlen_q=s, seqlen_k=s, headdim=d, headdim_v=d, causal=c,
                                    dtype=dtype))
    return shapes


def parse_shape(o: Any, where: str) -> Shape:
    """lib/core/sweep.cpp parse_shape()."""
    if not isinstance(o, dict):
        raise SweepError(f"{where}: expected an object describing a shape")
    batch = _positive_int(o, "batch", where)
    heads = _positive_int(o, "heads", where)
    headdim = _positive_int(o, "headdim", where)
    heads_kv = _positive_int(o, "heads_kv", where) if "heads_kv" in o else heads
    headdim_v = _positive_int(o, "headdim_v", where) if "headdim_v" in o else headdim
    # "seqlen" gives both lengths, "seqlen_q" or "seqlen_k" overrides its side: the rule of
    # core/shape.hpp's side_seqlen, which the sweep parser and the shape flags share.
    given = {k: _positive_int(o, k, where) for k in ("seqlen", "seqlen_q", "seqlen_k") if k in o}
    seqlen_q = given.get("seqlen_q", given.get("seqlen", 0))
    seqlen_k = given.get("seqlen_k", given.get("seqlen", 0))
    if not seqlen_q or not seqlen_k:
        absent = "seqlen" if not given else "seqlen_q" if not seqlen_q else "seqlen_k"
        raise SweepError(f'{where}/{absent}: missing; give "seqlen" (both lengths), or '
                         '"seqlen_q" and "seqlen_k"')
    causal = False
    if "causal" in o:
        if not isinstance(o["causal"], bool):
            raise SweepError(f"{where}/causal: expected true or false")
        causal = o["causal"]
    dtype = _dtype_of(o, where)
    shape = Shape(batch=batch, heads_q=heads, heads_kv=heads_kv, seqlen_q=seqlen_q,
                  seqlen_k=seqlen_k, headdim=headdim, headdim_v=headdim_v, causal=causal,
                  dtype=dtype)
    problem = validate_shape(shape)
    if problem:
        raise SweepError(f"{where}: {problem}")
    return shape


# A shape's serving fields (lib/core/sweep.cpp): a paged KV cache, a ragged batch's key counts (a
# list or a seeded distribution), a forced split count. SDPA takes none of them, so the runner
# leaves such shapes out rather than time the contiguous, uniform shape under their name.
SERVING_KEYS = ("page_size", "seqlens_k", "ragged", "splits")


@dataclass
class Sweep:
    name: str
    description: str
    shapes: List[Shape]
    origin: str
    left_out: List[str] = field(default_factory=list)  # JSON pointers of the serving shapes


def parse_sweep(doc: Any, origin: str) -> Sweep:
    """lib/core/sweep.cpp parse_sweep(): the grid's shapes first, then the listed shapes."""
    if not isinstance(doc, dict):
        raise SweepError(f"{origin}: expected a JSON object")
    if not isinstance(doc.get("name"), str):
        raise SweepError(f"{origin}: /name: missing; expected a string")
    description = doc.get("description") if isinstance(doc.get("description"), str) else ""
    shapes: List[Shape] = []
    if "grid" in doc:
        shapes.extend(_expand_grid(doc["grid"], f"{origin}: /grid"))
    left_out: List[str] = []
    if "shapes" in doc:
        if not isinstance(doc["shapes"], list):
            raise SweepError(f"{origin}: /shapes: expected an array of shape objects")
        for i, item in enumerate(doc["shapes"]):
            if isinstance(item, dict) and any(key in item for key in SERVING_KEYS):
                left_out.append(f"/shapes/{i}")
                continue
            shapes.append(parse_shape(item, f"{origin}: /shapes/{i}"))
    if not shapes and not left_out:
        raise SweepError(f"{origin}: no shapes: give a /grid or a non-empty /shapes array")
    return Sweep(name=doc["name"], description=description, shapes=shapes, origin=origin,
                 left_out=left_out)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load_sweep(path: str) -> Sweep:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SweepError(f"{path}: cannot open the sweep file ({e.strerror}); check the path "
                         "(sweeps ship in data/sweeps/)") from None
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        raise SweepError(f"{path}: not valid JSON ({e}); fix the file") from None
    return parse_sweep(doc, path)


def load_sweeps(paths: Sequence[str], note: Optional[Callable[[str], None]] = None) -> List[Shape]:
    """The shapes of every file in order, as `fa4-analyze bench --sweep A --sweep B` takes them;
    `note` is told of each file's serving shapes, left out."""
    shapes: List[Shape] = []
    for path in paths:
        sweep = load_sweep(path)
        shapes.extend(sweep.shapes)
        if note and sweep.left_out:
            note(f"{path}: {len(sweep.left_out)} paged, ragged or split shapes left out "
                 f"({', '.join(sweep.left_out)}): SDPA takes no paged KV cache, ragged key "
                 "lengths or split count")
    return shapes


# --------------------------------------------------------------------------------------------
# FLOPs (lib/core/shape.cpp)


def unmasked_pairs(s: Shape) -> float:
    sq, sk = float(s.seqlen_q), float(s.seqlen_k)
    if not s.causal:
        return sq * sk
    if sk >= sq:
        return sq * (sk - sq) + sq * sq / 2.0
    return sk * sk / 2.0


def attention_flops(s: Shape, pass_: str) -> float:
    fwd = 2.0 * s.batch * s.heads_q * unmasked_pairs(s) * (s.headdim + s.headdim_v)
    return fwd if pass_ == "fwd" else 2.5 * fwd


def visible_keys(s: Shape, row: int) -> int:
    """Keys query `row` sees: causal is bottom-right aligned (lib/reference/attention.cpp)."""
    if not s.causal:
        return s.seqlen_k
    return min(max(row + s.seqlen_k - s.seqlen_q + 1, 0), s.seqlen_k)


def rows_without_keys(s: Shape) -> int:
    """Leading query rows that see no key at all (causal with seqlen_q > seqlen_k)."""
    return max(0, s.seqlen_q - s.seqlen_k) if s.causal else 0


# --------------------------------------------------------------------------------------------
# Timing statistics and the stopping rule (lib/core/stats.cpp, lib/bench/timer.cpp)


@dataclass
class TimingOptions:
    warmup: int = 5
    min_samples: int = 10
    max_samples: int = 200
    target_relative_iqr: float = 0.02
    time_cap_s: float = 3.0  # of sampling (flushes included), after the warm-up


def quantile(sorted_values: Sequence[float], q: float) -> float:
    position = q * (len(sorted_values) - 1)
    below = int(math.floor(position))
    above = min(below + 1, len(sorted_values) - 1)
    return sorted_values[below] + (position - below) * (sorted_values[above] - sorted_values[below])


def summarize(samples: Sequence[float]) -> Dict[str, Any]:
    if not samples:
        raise ValueError("summarize needs at least one sample")
    ordered = sorted(samples)
    return {
        "samples_s": list(samples),
        "median_s": quantile(ordered, 0.5),
        "p25_s": quantile(ordered, 0.25),
        "p75_s": quantile(ordered, 0.75),
        "min_s": ordered[0],
        "max_s": ordered[-1],
    }


def relative_iqr(samples: Sequence[float]) -> float:
    """(p75 - p25) / median; 0 for fewer than two samples (stats.cpp)."""
    if len(samples) < 2:
        return 0.0
    st = summarize(samples)
    if st["median_s"] <= 0:
        return 0.0
    return (st["p75_s"] - st["p25_s"]) / st["median_s"]


def should_stop(samples: Sequence[float], elapsed_s: float, options: TimingOptions,
                time_cap_s: Optional[float] = None) -> bool:
    """After appending a sample: stop sampling? timer.cpp: never before min_samples, always at
    max_samples, else when the sampling time passed the cap or the relative IQR is below target.
    `time_cap_s` overrides options.time_cap_s (the per-shape budget can shorten it)."""
    cap = options.time_cap_s if time_cap_s is None else time_cap_s
    n = len(samples)
    if n >= options.max_samples:
        return True
    if n < options.min_samples:
        return False
    return elapsed_s > cap or relative_iqr(samples) < options.target_relative_iqr


def record_time_cap(options: TimingOptions, shape_budget_s: float, shape_elapsed_s: float,
                    records_left: int) -> float:
    """The sampling time cap of the next record of a shape: the per-record cap, shortened so the
    records still to come for this shape share what is left of --max-seconds-per-shape equally
    (0 when the budget is spent: the record then stops at min_samples). A budget <= 0 means none."""
    if shape_budget_s <= 0:
        return options.time_cap_s
    left = max(0.0, shape_budget_s - shape_elapsed_s)
    return min(options.time_cap_s, left / max(1, records_left))


# --------------------------------------------------------------------------------------------
# Correctness tolerances


def tolerance(dtype: str, pass_: str) -> Tuple[float, float]:
    """(atol, rtol): max |err| <= atol + rtol * |ref|. 2^-6 for bf16 inputs (epsilon 2^-8 times
    ~4 for the rounding of P and O), 2^-8 for fp16; 4x those for the gradients."""
    base = 2.0 ** -6 if dtype == "bf16" else 2.0 ** -8
    factor = 4.0 if pass_ == "bwd" else 1.0
    return base * factor, base * factor


def describe_tolerance(dtype: str, pass_: str) -> str:
    atol, rtol = tolerance(dtype, pass_)
    return f"|err| <= {atol:g} + {rtol:g} * |ref| ({dtype} {pass_}, float32 reference)"


# --------------------------------------------------------------------------------------------
# Memory of the math backend


MATH_SAFETY_FRACTION = 0.8  # of free device memory the math backend may plan to use


def math_bytes_needed(s: Shape, pass_: str) -> int:
    """A conservative estimate of what SDPBackend.MATH allocates. PyTorch's math path upcasts
    bf16/fp16 to float32 (unless allow_fp16_bf16_reduction_math_sdp) and materializes, for every
    batch * head, the scores S and the probabilities P, plus one more score-sized temporary
    (masking / softmax workspace): 12 bytes per (query, key) pair forward; the causal mask is one
    sq x sk bool plus a float bias. Backward (forward with the graph kept, then the gradients):
    3x the forward. Inputs upcast to float32 (and GQA's repeated K/V) are added."""
    pairs = s.batch * s.heads_q * s.seqlen_q * s.seqlen_k
    fwd = pairs * 12
    if s.causal:
        fwd += s.seqlen_q * s.seqlen_k * (1 + 4)
    io = 4 * s.batch * s.heads_q * (s.seqlen_q * (s.headdim + 2 * s.headdim_v)
                                   + s.seqlen_k * (s.headdim + s.headdim_v))
    fwd += io
    return fwd if pass_ == "fwd" else 3 * fwd


def math_fits(s: Shape, pass_: str, free_bytes: int) -> Tuple[bool, str]:
    need = math_bytes_needed(s, pass_)
    budget = int(free_bytes * MATH_SAFETY_FRACTION)
    if need <= budget:
        return True, ""
    return False, (f"does not fit: the math backend would need about {gib(need)} ({need} bytes: "
                   f"S and P of all {s.batch}x{s.heads_q} batch x heads in float32, {pass_}) and "
                   f"{gib(free_bytes)} ({free_bytes} bytes) of device memory is free, of which this "
                   f"runner plans at most {int(MATH_SAFETY_FRACTION * 100)}%")


def gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


# --------------------------------------------------------------------------------------------
# Records


RECORD_KEYS = ["schema", "run", "source", "kernel", "device", "driver", "cuda", "versions",
               "revision", "host", "measured_at", "shape", "pass", "status", "reason", "check",
               "samples_s", "median_s", "p25_s", "p75_s", "min_s", "max_s", "tflops",
               "sm_clock_mhz"]
TIMING_KEYS = ["samples_s", "median_s", "p25_s", "p75_s", "min_s", "max_s"]
STATUSES = ("ok", "failed", "skipped")


def make_record(context: Dict[str, Any], kernel: str, shape: Shape, pass_: str, status: str,
                reason: Optional[str] = None, check: Optional[Dict[str, Any]] = None,
                timing: Optional[Dict[str, Any]] = None, sm_clock_mhz: Optional[float] = None,
                measured_at: str = "") -> Dict[str, Any]:
    """One JSON Lines record. `context` holds run, device, driver, cuda, versions, revision, host.
    Times, tflops and the SM clock only when status is ok; a reason whenever it is not."""
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {STATUSES}")
    if status == "ok" and timing is None:
        raise ValueError("an ok record needs its timing")
    if status != "ok" and not reason:
        raise ValueError("a failed or skipped record needs a reason")
    record: Dict[str, Any] = {
        "schema": SCHEMA,
        "run": context["run"],
        "source": PEER_SOURCE[kernel],
        "kernel": kernel,
        "device": context.get("device"),
        "driver": context.get("driver"),
        "cuda": context.get("cuda"),
        "versions": dict(context.get("versions") or {}),
        "revision": context.get("revision"),
        "host": context.get("host"),
        "measured_at": measured_at,
        "shape": shape.to_json(),
        "pass": pass_,
        "status": status,
        "reason": None if status == "ok" else reason,
        "check": check,
    }
    ok = status == "ok"
    for key in TIMING_KEYS:
        record[key] = timing[key] if ok else None
    record["tflops"] = (attention_flops(shape, pass_) / timing["median_s"] / 1e12
                        if ok and timing["median_s"] > 0 else None)
    record["sm_clock_mhz"] = sm_clock_mhz if ok else None
    assert list(record) == RECORD_KEYS
    return record


def record_line(record: Dict[str, Any]) -> str:
    """The record as one line of JSON (no NaN/Infinity: they are not JSON)."""
    return json.dumps(record, allow_nan=False, separators=(", ", ": "))


def progress_line(index: int, total: int, record: Dict[str, Any]) -> str:
    """[12/216] sdpa_cudnn b4 h16 s4096 d128 causal bf16 fwd: 602.1 TFLOP/s (median 0.912 ms,
    37 samples)"""
    sh = record["shape"]
    shape = Shape(**sh)
    head = f"[{index}/{total}] {record['kernel']} {shape.describe()} {record['pass']}"
    if record["status"] == "ok":
        return (f"{head}: {record['tflops']:.1f} TFLOP/s (median {record['median_s'] * 1e3:.3f} ms, "
                f"{len(record['samples_s'])} samples)")
    reason = (record["reason"] or "").strip().splitlines()
    first = reason[0] if reason else ""
    if len(first) > 160:
        first = first[:157] + "..."
    return f"{head}: {record['status']}: {first}"


def parse_peers(text: str) -> List[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UsageError("--peers: empty list; give a comma-separated subset of "
                         + ",".join(PEER_NAMES))
    unknown = [n for n in names if n not in PEER_NAMES]
    if unknown:
        raise UsageError(f"--peers: unknown peer(s) {', '.join(unknown)}; the peers are "
                         + ",".join(PEER_NAMES))
    seen: List[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return seen


def passes_of(text: str) -> List[str]:
    return ["fwd", "bwd"] if text == "both" else [text]


def check_rows(seqlen_q: int, seqlen_k: int, causal: bool, max_all_rows: int = 1024,
               sampled: int = 256, seed: int = 0) -> List[int]:
    """Query rows the correctness check compares: every row when seqlen_q <= 1024, else the
    first and last rows, the rows around the first one that sees a key (causal, seqlen_q >
    seqlen_k), and `sampled` random rows; sorted, without repeats."""
    if seqlen_q <= max_all_rows:
        return list(range(seqlen_q))
    import random
    rng = random.Random(seed)
    rows = {0, seqlen_q - 1}
    first_visible = max(0, seqlen_q - seqlen_k) if causal else 0
    if first_visible > 0:
        rows.update({first_visible - 1, min(first_visible, seqlen_q - 1)})
    rows.update(rng.randrange(seqlen_q) for _ in range(sampled))
    return sorted(rows)


# --------------------------------------------------------------------------------------------
# Serving rounds to `fa4-analyze bench --ab` (torch_peers.py --serve)


class RoundError(Exception):
    """A round that could not be timed; the reply says why."""


def serve(read_line: Callable[[], str], write_line: Callable[[str], None],
          prepare: Callable[[Shape, int], Tuple[str, Optional[str], Optional[Dict[str, Any]]]],
          time_round: Callable[[], List[float]]) -> int:
    """The loop of torch_peers.py --serve: one JSON object a line each way, one reply per request,
    until {"op": "quit"} or the end of input (returns 0).

      {"op": "prepare", "shape": {sweep shape}, "seed": N}  ->  {"status", "reason", "check"}
      {"op": "round"}                                       ->  {"samples_s": [...]}
      anything else, a round before an ok prepare           ->  {"error": why}

    `prepare(shape, seed)` draws the shape's inputs and checks the peer once: (status, reason,
    check). `time_round()` times the prepared peer once: its samples, in the order taken, or
    RoundError."""
    prepared = False
    while True:
        line = read_line()
        if not line:
            return 0
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError as e:
            write_line(json.dumps({"error": f"not a JSON request: {e}"}))
            continue
        op = request.get("op") if isinstance(request, dict) else None
        if op == "quit":
            return 0
        if op == "prepare":
            seed = request.get("seed", 0)
            try:
                if not _is_int(seed) or seed < 0:
                    raise SweepError("prepare/seed: expected an integer >= 0")
                shape = parse_shape(request.get("shape"), "prepare/shape")
            except SweepError as e:
                prepared = False
                write_line(json.dumps({"error": str(e)}))
                continue
            status, reason, check = prepare(shape, seed)
            prepared = status == "ok"
            write_line(json.dumps({"status": status, "reason": reason, "check": check},
                                  allow_nan=False))
        elif op == "round":
            if not prepared:
                write_line(json.dumps({"error": "no peer is prepared to time: send an ok "
                                                "prepare first"}))
                continue
            try:
                samples = time_round()
            except RoundError as e:
                write_line(json.dumps({"error": str(e)}))
                continue
            write_line(json.dumps({"samples_s": samples}, allow_nan=False))
        else:
            write_line(json.dumps({"error": f"unknown op {op!r}: prepare, round or quit"}))
