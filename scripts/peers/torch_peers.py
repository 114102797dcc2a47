#!/usr/bin/env python3
"""Times the peer attention kernels (PyTorch SDPA's flash, cuDNN, memory-efficient and math
backends, and this project's Triton forward) on the project's sweep files, with the same check and
timing method as `fa4-analyze bench`, and writes one JSON Lines record per (peer, shape, pass).

    python3 scripts/peers/torch_peers.py --sweep data/sweeps/fa3-paper.json --out peers.jsonl
    python3 scripts/peers/torch_peers.py --check-environment

Usage, the record format and the exit codes: scripts/peers/README.md.
"""
from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common as pc  # noqa: E402  (pure Python: sweeps, statistics, records)

EXIT_OK, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_DEVICE_ERROR, EXIT_INTERRUPTED = 0, 2, 3, 4, 130
MIN_FLUSH_BYTES = 256 << 20
REFERENCE_CHUNK_BYTES = 256 << 20  # per score-sized float32 temporary of the reference
FULL_BWD_CHECK_MAX_PAIRS = 1 << 33  # group * seqlen_q * seqlen_k above which dK/dV go unchecked
TRITON_NO_BWD = "no Triton backward kernel in this project"


class EnvironmentProblem(Exception):
    """No PyTorch or no CUDA device: exit 3 with the message."""


class DeviceBroken(Exception):
    """A CUDA error that leaves the context unusable: stop the sweep (exit 4)."""


class PeerTimingFailed(Exception):
    """A prepared peer's call raised while it was timed: the record is failed, with this reason."""


# --------------------------------------------------------------------------------------------
# Arguments


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="torch_peers.py",
        description="Check and time the peer attention kernels (torch SDPA backends, the "
                    "project's Triton forward) on sweep files; one JSON Lines record per (peer, "
                    "shape, pass). See scripts/peers/README.md.")
    p.add_argument("--sweep", action="append", default=[], metavar="FILE",
                   help="sweep JSON file (data/sweeps/*.json); repeat for several")
    p.add_argument("--pass", dest="pass_", choices=["fwd", "bwd", "both"], default="both",
                   help="forward, backward or both (default both)")
    p.add_argument("--peers", default=",".join(pc.PEER_NAMES),
                   help="comma-separated subset of " + ",".join(pc.PEER_NAMES) + " (default all)")
    p.add_argument("--out", metavar="FILE",
                   help="JSON Lines file the records are appended to ('-' for stdout)")
    p.add_argument("--revision", default=None,
                   help="recorded as the records' revision (e.g. `git describe`); default null")
    p.add_argument("--max-seconds-per-shape", type=float, default=8.0, metavar="S",
                   help="sampling budget of one shape, all its peers and passes together: each "
                        "record's sampling cap shrinks so the shape's records share what is left "
                        "(at least --min-samples are always taken); 0 = no budget (default 8)")
    p.add_argument("--time-cap", type=float, default=3.0, metavar="S",
                   help="sampling time cap of one record, as the C++ timer (default 3)")
    p.add_argument("--warmup", type=int, default=5, help="warm-up calls (default 5)")
    p.add_argument("--min-samples", type=int, default=10, help="default 10")
    p.add_argument("--max-samples", type=int, default=200, help="default 200")
    p.add_argument("--target-iqr", type=float, default=0.02,
                   help="stop when (p75 - p25) / median is below this (default 0.02)")
    p.add_argument("--seed", type=int, default=0, help="input seed; shape i uses seed + i")
    p.add_argument("--dry-run", action="store_true",
                   help="list the shapes and records a run would make, without PyTorch")
    p.add_argument("--check-environment", action="store_true",
                   help="print the versions and the device; exit 0, or 3 without PyTorch or a "
                        "CUDA device")
    p.add_argument("--list-peers", action="store_true",
                   help="print each peer's name and source, one a line, and exit (no PyTorch)")
    p.add_argument("--serve", action="store_true",
                   help="time one peer (--peers NAME) of one pass (--pass fwd|bwd) in rounds for "
                        "`fa4-analyze bench --ab`: JSON requests on stdin, one reply a line on "
                        "stdout (scripts/peers/README.md)")
    return p


def options_from(args: argparse.Namespace) -> pc.TimingOptions:
    problems = []
    if args.warmup < 0:
        problems.append("--warmup must be >= 0")
    if args.min_samples < 1:
        problems.append("--min-samples must be >= 1")
    if args.max_samples < args.min_samples:
        problems.append("--max-samples must be >= --min-samples")
    if not args.target_iqr > 0:
        problems.append("--target-iqr must be > 0")
    if not args.time_cap > 0:
        problems.append("--time-cap must be > 0")
    if not args.max_seconds_per_shape >= 0:
        problems.append("--max-seconds-per-shape must be >= 0 (0: no per-shape budget)")
    if problems:
        raise pc.UsageError("; ".join(problems))
    return pc.TimingOptions(warmup=args.warmup, min_samples=args.min_samples,
                            max_samples=args.max_samples, target_relative_iqr=args.target_iqr,
                            time_cap_s=args.time_cap)


# --------------------------------------------------------------------------------------------
# Environment


def import_torch():
    try:
        import torch  # noqa: F401
    except (ImportError, OSError) as e:
        raise EnvironmentProblem(
            f"PyTorch is not installed for python3 ({sys.executable}): {e}. Install it for this "
            "interpreter (python3 -m pip install torch) or run the script with a python3 that has "
            "it.") from None
    if torch.version.cuda is None:
        raise EnvironmentProblem(
            f"no CUDA device visible to PyTorch: torch {torch.__version__} is a build without "
            "CUDA; install a CUDA build of PyTorch")
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        raise EnvironmentProblem(
            f"no CUDA device visible to PyTorch (torch {torch.__version__}, CUDA "
            f"{torch.version.cuda}, CUDA_VISIBLE_DEVICES="
            f"{os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')}); the peers need an NVIDIA GPU")
    return torch


def import_triton() -> Tuple[Optional[Any], Optional[str]]:
    """(module triton_attention, None) or (None, the import error text)."""
    try:
        import triton_attention  # noqa: F401 (imports triton)
        return triton_attention, None
    except Exception as e:  # noqa: BLE001 - ImportError, or a Triton that fails to initialise
        return None, f"Triton is not importable: {type(e).__name__}: {e}"


def triton_version() -> Optional[str]:
    try:
        import triton
        return getattr(triton, "__version__", None)
    except Exception:  # noqa: BLE001
        return None


def nvidia_smi(query: str, gpu: str) -> Optional[str]:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        done = subprocess.run([exe, f"--query-gpu={query}", "--format=csv,noheader,nounits",
                               "-i", gpu], capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return None
    return lines[0].strip()


def nvidia_smi_id(torch) -> str:
    """The device PyTorch calls cuda:0, as nvidia-smi -i wants it (its UUID when known: the
    indices differ under CUDA_VISIBLE_DEVICES)."""
    try:
        text = str(torch.cuda.get_device_properties(0).uuid)
        ident = text if text.startswith("GPU-") else "GPU-" + text
        if nvidia_smi("name", ident) is not None:
            return ident
    except Exception:  # noqa: BLE001
        pass
    return "0"


def sm_clock_mhz(gpu: str) -> Optional[float]:
    text = nvidia_smi("clocks.sm", gpu)
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def run_context(torch, revision: Optional[str], gpu: str) -> Dict[str, Any]:
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return {
        "run": uuid.uuid4().hex,
        "device": torch.cuda.get_device_name(0),
        "driver": nvidia_smi("driver_version", gpu),
        "cuda": torch.version.cuda,
        "versions": {"torch": torch.__version__, "triton": triton_version(),
                     "cudnn": None if cudnn is None else str(cudnn),
                     "python": platform.python_version()},
        "revision": revision,
        "host": socket.gethostname(),
    }


def check_environment() -> int:
    try:
        torch = import_torch()
    except EnvironmentProblem as e:
        print(f"torch_peers.py: {e}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    gpu = nvidia_smi_id(torch)
    ctx = run_context(torch, None, gpu)
    props = torch.cuda.get_device_properties(0)
    module, triton_problem = import_triton()
    print(f"python {ctx['versions']['python']} ({sys.executable})")
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {ctx['versions']['cudnn']}")
    print(f"triton {ctx['versions']['triton']}" if module else f"triton: {triton_problem}")
    print(f"device {ctx['device']} (sm_{props.major}{props.minor}, {props.multi_processor_count} SMs, "
          f"{props.total_memory / 2**30:.1f} GiB, L2 {l2_bytes(props) / 2**20:.0f} MiB), "
          f"driver {ctx['driver']}, SM clock {sm_clock_mhz(gpu)} MHz")
    return EXIT_OK


def l2_bytes(props) -> int:
    return int(getattr(props, "L2_cache_size", 0) or 0)


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------------------------
# Error text


_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*")


def first_lines(text: str, n: int = 3, width: int = 400) -> str:
    lines = [ln.strip() for ln in _TRIGGERED.sub(" ", str(text)).strip().splitlines() if ln.strip()]
    joined = " / ".join(lines[:n])
    return joined if len(joined) <= width else joined[: width - 3] + "..."


_NOT_USED = re.compile(r"kernel not used because:?\s*$")
_BACKEND_WORD = {"FLASH_ATTENTION": "flash", "CUDNN_ATTENTION": "cudnn",
                 "EFFICIENT_ATTENTION": "memory efficient", "MATH": "math"}


def refusal_reason(error: BaseException, caught: List[warnings.WarningMessage],
                   backend: Optional[str] = None) -> str:
    """PyTorch's refusal: the error's first lines, then the warnings that give the actual reasons
    ("Flash attention kernel not used because:" followed by one warning per reason), grouped by
    backend, the selected backend first, without the "has been runtime disabled" lines of the
    backends sdpa_kernel turned off, and without repeats."""
    groups: List[Tuple[str, List[str]]] = []
    seen = set()
    for w in caught:
        text = first_lines(str(w.message), n=2, width=400)
        if not text:
            continue
        if _NOT_USED.search(text):
            groups.append((text.rstrip(":").rstrip() + ":", []))
            continue
        if "runtime disabled" in text or text in seen:
            continue
        seen.add(text)
        if not groups:
            groups.append(("", []))
        groups[-1][1].append(text)
    word = _BACKEND_WORD.get(backend or "", "\0")
    groups = [g for g in groups if g[1]]
    groups.sort(key=lambda g: 0 if g[0].lower().startswith(word) else 1)
    parts = [f"{type(error).__name__}: {first_lines(str(error))}"]
    parts += [(f"{head} " if head else "") + "; ".join(details) for head, details in groups]
    reason = " | ".join(parts)
    return reason if len(reason) <= 1500 else reason[:1497] + "..."


def is_cuda_error(error: BaseException) -> bool:
    text = str(error)
    return "CUDA error" in text or "illegal memory access" in text or "device-side assert" in text


# --------------------------------------------------------------------------------------------
# Reference (float32 on the GPU, plain matmul/softmax, chunked over query rows)


class Reference:
    """The float32 reference of one shape and pass on a subset, computed once and shared by the
    peers: batches {0, last}, query heads {0, last}; forward: O on the check rows; backward: dQ
    on the check rows and dK, dV of those heads' kv heads (exact: every query head of the kv
    group and every row enter the sums), unless group * seqlen_q * seqlen_k is too large."""

    def __init__(self, torch, shape: pc.Shape, pass_: str, q, k, v, dout, seed: int):
        self.torch = torch
        self.shape = shape
        self.pass_ = pass_
        s = shape
        self.batches = sorted({0, s.batch - 1})
        self.heads = sorted({0, s.heads_q - 1})
        self.kv_heads = sorted({h // s.group for h in self.heads})
        self.rows = pc.check_rows(s.seqlen_q, s.seqlen_k, s.causal, seed=seed)
        skip = pc.rows_without_keys(s)
        self.compared_rows = [r for r in self.rows if r >= skip]
        self.rows_without_keys = len(self.rows) - len(self.compared_rows)
        self.full_dkv = (pass_ == "bwd"
                         and s.group * s.seqlen_q * s.seqlen_k <= FULL_BWD_CHECK_MAX_PAIRS)
        self.o: Dict[Tuple[int, int], Any] = {}
        self.dq: Dict[Tuple[int, int], Any] = {}
        self.dk: Dict[Tuple[int, int], Any] = {}
        self.dv: Dict[Tuple[int, int], Any] = {}
        row_index = torch.tensor(self.compared_rows, device=q.device, dtype=torch.long)
        for b in self.batches:
            if pass_ == "fwd":
                for h in self.heads:
                    o, _, _, _ = self._group(q[b, h:h + 1], k[b, h // s.group], v[b, h // s.group],
                                             None, row_index, want_dkv=False)
                    self.o[(b, h)] = o[0]
            else:
                for kvh in self.kv_heads:
                    heads = list(range(kvh * s.group, (kvh + 1) * s.group))
                    # dK/dV need every row of every head of the group; dQ only the check rows.
                    rows = (torch.arange(s.seqlen_q, device=q.device) if self.full_dkv
                            else row_index)
                    _, dq, dk, dv = self._group(q[b, heads[0]:heads[-1] + 1], k[b, kvh], v[b, kvh],
                                                dout[b, heads[0]:heads[-1] + 1], rows,
                                                want_dkv=self.full_dkv)
                    for h in self.heads:
                        if h // s.group == kvh:
                            g = h - heads[0]
                            self.dq[(b, h)] = dq[g][row_index] if self.full_dkv else dq[g]
                    if self.full_dkv:
                        self.dk[(b, kvh)] = dk
                        self.dv[(b, kvh)] = dv

    def _group(self, q, k, v, dout, rows, want_dkv: bool):
        """q (G, Sq, D), k (Sk, D), v (Sk, Dv), dout (G, Sq, Dv) or None; the rows of `rows`.
        Returns O (G, R, Dv), dQ (G, R, D) or None, dK (Sk, D), dV (Sk, Dv) or None."""
        torch = self.torch
        s = self.shape
        scale = 1.0 / math.sqrt(s.headdim)
        qf, kf, vf = q.float(), k.float(), v.float()
        dof = dout.float() if dout is not None else None
        g, sk = qf.shape[0], kf.shape[0]
        keys = torch.arange(sk, device=q.device)
        chunk = max(1, REFERENCE_CHUNK_BYTES // (g * sk * 4))
        outs, dqs = [], []
        dk = torch.zeros_like(kf) if want_dkv else None
        dv = torch.zeros_like(vf) if want_dkv else None
        for start in range(0, rows.numel(), chunk):
            r = rows[start:start + chunk]
            qc = qf[:, r]                                    # (G, C, D)
            scores = torch.matmul(qc, kf.t()) * scale        # (G, C, Sk)
            if s.causal:
                visible = keys[None, :] <= r[:, None] + (s.seqlen_k - s.seqlen_q)
                scores = scores.masked_fill(~visible, float("-inf"))
            m = scores.amax(dim=-1, keepdim=True)
            m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
            p = torch.exp(scores - m)
            del scores
            denom = p.sum(dim=-1, keepdim=True)
            p = p / torch.where(denom == 0, torch.ones_like(denom), denom)
            o = torch.matmul(p, vf)                          # (G, C, Dv)
            outs.append(o)
            if dof is not None:
                doc = dof[:, r]
                dp = torch.matmul(doc, vf.t())               # (G, C, Sk)
                delta = (doc * o).sum(dim=-1, keepdim=True)
                ds = p * (dp - delta)
                del dp
                dqs.append(torch.matmul(ds, kf) * scale)
                if want_dkv:
                    dk += torch.matmul(ds.transpose(1, 2), qc).sum(dim=0) * scale
                    dv += torch.matmul(p.transpose(1, 2), doc).sum(dim=0)
                del ds
            del p
        o_all = torch.cat(outs, dim=1) if outs else None
        dq_all = torch.cat(dqs, dim=1) if dqs else None
        return o_all, dq_all, dk, dv


class Mismatch:
    """The worst element of a comparison."""

    def __init__(self):
        self.max_abs = 0.0
        self.worst_ratio = 0.0
        self.worst = ""
        self.non_finite = 0
        self.first_non_finite = ""

    def add(self, torch, name: str, where: str, got, ref, atol: float, rtol: float,
            row_labels: Optional[List[int]] = None) -> None:
        got = got.float()
        finite = torch.isfinite(got)
        bad = int((~finite).sum().item())
        if bad:
            if not self.non_finite:
                idx = int((~finite).flatten().nonzero()[0].item())
                r, c = divmod(idx, got.shape[-1])
                row = row_labels[r] if row_labels else r
                self.first_non_finite = f"{name} {where} row {row} col {c}"
            self.non_finite += bad
        err = torch.where(finite, (got - ref).abs(), torch.zeros_like(got))
        allowed = atol + rtol * ref.abs()
        ratio = err / allowed
        idx = int(ratio.flatten().argmax().item())
        worst_ratio = float(ratio.flatten()[idx].item())
        self.max_abs = max(self.max_abs, float(err.max().item()))
        if worst_ratio >= self.worst_ratio:
            self.worst_ratio = worst_ratio
            r, c = divmod(idx, got.shape[-1])
            row = row_labels[r] if row_labels else r
            self.worst = (f"{name} {where} row {row} col {c}: got "
                          f"{float(got.flatten()[idx].item()):.6g}, expected "
                          f"{float(ref.flatten()[idx].item()):.6g}")

    @property
    def passed(self) -> bool:
        return self.non_finite == 0 and self.worst_ratio <= 1.0


def all_finite(torch, tensor, skip_rows: int) -> bool:
    part = tensor[:, :, skip_rows:] if skip_rows else tensor
    return bool(torch.isfinite(part).all().item())


def check_forward(torch, ref: Reference, out) -> Tuple[bool, Dict[str, Any], str]:
    s = ref.shape
    atol, rtol = pc.tolerance(s.dtype, "fwd")
    mm = Mismatch()
    skip = pc.rows_without_keys(s)
    if not all_finite(torch, out, skip):
        bad = int((~torch.isfinite(out[:, :, skip:])).sum().item())
        mm.non_finite += bad
        mm.first_non_finite = mm.first_non_finite or "O (outside the sampled rows)"
    rows = torch.tensor(ref.compared_rows, device=out.device, dtype=torch.long)
    for (b, h), o_ref in ref.o.items():
        mm.add(torch, "O", f"batch {b} head {h}", out[b, h][rows], o_ref, atol, rtol,
               ref.compared_rows)
    n_rows = len(ref.compared_rows) * len(ref.o)
    return finish_check(s, "fwd", mm, n_rows, ref, "O")


def check_backward(torch, ref: Reference, grads) -> Tuple[bool, Dict[str, Any], str]:
    s = ref.shape
    atol, rtol = pc.tolerance(s.dtype, "bwd")
    dq, dk, dv = grads
    mm = Mismatch()
    skip = pc.rows_without_keys(s)
    for name, t, rows_skip in (("dQ", dq, skip), ("dK", dk, 0), ("dV", dv, 0)):
        if not all_finite(torch, t, rows_skip):
            mm.non_finite += int((~torch.isfinite(t[:, :, rows_skip:])).sum().item())
            mm.first_non_finite = mm.first_non_finite or f"{name} (outside the sampled rows)"
    rows = torch.tensor(ref.compared_rows, device=dq.device, dtype=torch.long)
    for (b, h), dq_ref in ref.dq.items():
        mm.add(torch, "dQ", f"batch {b} head {h}", dq[b, h][rows], dq_ref, atol, rtol,
               ref.compared_rows)
    n_rows = len(ref.compared_rows) * len(ref.dq)
    for (b, kvh), dk_ref in ref.dk.items():
        mm.add(torch, "dK", f"batch {b} kv-head {kvh}", dk[b, kvh], dk_ref, atol, rtol)
        mm.add(torch, "dV", f"batch {b} kv-head {kvh}", dv[b, kvh], ref.dv[(b, kvh)], atol, rtol)
        n_rows += s.seqlen_k
    return finish_check(s, "bwd", mm, n_rows, ref, "dQ,dK,dV" if ref.full_dkv else "dQ")


def finish_check(s: pc.Shape, pass_: str, mm: Mismatch, n_rows: int, ref: Reference,
                 compared: str) -> Tuple[bool, Dict[str, Any], str]:
    check: Dict[str, Any] = {
        "max_abs_error": mm.max_abs if math.isfinite(mm.max_abs) else None,
        "tolerance": pc.describe_tolerance(s.dtype, pass_),
        "rows_checked": n_rows,
        "compared": compared,
        "worst": mm.worst or None,
        "worst_error_over_tolerance": mm.worst_ratio if math.isfinite(mm.worst_ratio) else None,
        "non_finite": mm.non_finite,
        "rows_without_keys_skipped": ref.rows_without_keys * (len(ref.o) or len(ref.dq)),
    }
    if pass_ == "bwd" and not ref.full_dkv:
        check["dkv"] = (f"sampled-skipped: dK/dV not checked (group {s.group} x {s.seqlen_q} x "
                        f"{s.seqlen_k} score pairs is past the reference's limit of 2^33); dQ "
                        "rows checked")
    if mm.passed:
        return True, check, ""
    if mm.non_finite:
        reason = (f"{mm.non_finite} non-finite values in the output, the first at "
                  f"{mm.first_non_finite}")
    else:
        reason = (f"differs from the float32 reference: max |err| {mm.max_abs:.4g}; worst against "
                  f"the tolerance ({mm.worst_ratio:.2f}x): {mm.worst}; tolerance "
                  f"{check['tolerance']}")
    return False, check, reason


# --------------------------------------------------------------------------------------------
# Peers


class ShapeState:
    """Inputs, references and the SM clock of the shape being measured."""

    def __init__(self, torch, shape: pc.Shape, seed: int, need_dout: bool):
        self.torch = torch
        self.shape = shape
        self.seed = seed
        self.need_dout = need_dout
        self.inputs = None
        self.input_error: Optional[str] = None
        self.references: Dict[str, Reference] = {}
        self.sm_clock: Optional[float] = None
        self.sm_clock_read = False

    def tensors(self):
        """(q, k, v, dout) or raises; allocated once."""
        if self.input_error:
            raise MemoryError(self.input_error)
        if self.inputs is None:
            torch = self.torch
            s = self.shape
            dtype = torch.bfloat16 if s.dtype == "bf16" else torch.float16
            torch.manual_seed(self.seed)
            try:
                q = torch.randn(s.batch, s.heads_q, s.seqlen_q, s.headdim, device="cuda", dtype=dtype)
                k = torch.randn(s.batch, s.heads_kv, s.seqlen_k, s.headdim, device="cuda", dtype=dtype)
                v = torch.randn(s.batch, s.heads_kv, s.seqlen_k, s.headdim_v, device="cuda",
                                dtype=dtype)
                dout = (torch.randn(s.batch, s.heads_q, s.seqlen_q, s.headdim_v, device="cuda",
                                    dtype=dtype) if self.need_dout else None)
                if dout is not None and pc.rows_without_keys(s):
                    # Rows that see no key (causal, seqlen_q > seqlen_k) are undefined in PyTorch
                    # (NaN, or whatever a backend makes of an all-masked row); the project defines
                    # O = 0 there. dO = 0 on them keeps their outputs out of every gradient.
                    dout[:, :, :pc.rows_without_keys(s)] = 0
            except torch.cuda.OutOfMemoryError as e:
                self.input_error = f"the inputs do not fit in device memory: {first_lines(str(e), 1)}"
                release(torch)
                raise MemoryError(self.input_error) from None
            self.inputs = (q, k, v, dout)
        return self.inputs

    def reference(self, pass_: str) -> Reference:
        if pass_ not in self.references:
            q, k, v, dout = self.tensors()
            self.references[pass_] = Reference(self.torch, self.shape, pass_, q, k, v, dout,
                                               self.seed)
        return self.references[pass_]

    def free(self):
        self.inputs = None
        self.references.clear()


def release(torch) -> None:
    gc.collect()
    try:
        torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001 - after a CUDA error; the caller reports that one
        pass


def sdpa_call(torch, shape: pc.Shape) -> Callable:
    """q, k, v -> F.scaled_dot_product_attention with the project's causal convention:
    is_causal when seqlen_q == seqlen_k (top-left and bottom-right agree), else the
    bottom-right CausalBias; enable_gqa when heads_kv < heads_q."""
    import torch.nn.functional as F
    kwargs: Dict[str, Any] = {}
    if shape.heads_kv != shape.heads_q:
        kwargs["enable_gqa"] = True
    mask = None
    if shape.causal:
        if shape.seqlen_q == shape.seqlen_k:
            kwargs["is_causal"] = True
        else:
            from torch.nn.attention.bias import causal_lower_right
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "will produce NaNs when seq_len_q > seq_len_kv"
                mask = causal_lower_right(shape.seqlen_q, shape.seqlen_k)
    if mask is not None:
        return lambda q, k, v: F.scaled_dot_product_attention(q, k, v, mask, **kwargs)
    return lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kwargs)


def backend_context(torch, peer: str):
    backend = pc.PEER_BACKEND[peer]
    if backend is None:
        import contextlib
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel(getattr(SDPBackend, backend))


class Outcome:
    def __init__(self, status: str, reason: Optional[str] = None,
                 check: Optional[Dict[str, Any]] = None, timing: Optional[Dict[str, Any]] = None):
        self.status, self.reason, self.check, self.timing = status, reason, check, timing


class Runner:
    def __init__(self, torch, options: pc.TimingOptions, triton_module, triton_problem,
                 stop_flag: Callable[[], bool]):
        self.torch = torch
        self.options = options
        self.triton = triton_module
        self.triton_problem = triton_problem
        props = torch.cuda.get_device_properties(0)
        self.flush = torch.empty(max(MIN_FLUSH_BYTES, 2 * l2_bytes(props)), dtype=torch.uint8,
                                 device="cuda")
        self.stop_flag = stop_flag

    def time(self, work: Callable[[], Any], cap_s: float) -> Dict[str, Any]:
        """lib/bench/timer.cpp: warm-up, then per sample an L2 flush outside the events and CUDA
        events around the work alone, until the stopping rule says enough."""
        torch = self.torch
        for _ in range(self.options.warmup):
            work()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        samples: List[float] = []
        began = time.monotonic()
        while True:
            self.flush.zero_()
            start.record()
            work()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) * 1e-3)  # elapsed_time is in ms
            if pc.should_stop(samples, time.monotonic() - began, self.options, cap_s):
                break
        return pc.summarize(samples)

    def precheck(self, peer: str, shape: pc.Shape, pass_: str) -> Optional[Outcome]:
        """Skips decided without touching the GPU."""
        if shape.dtype not in ("bf16", "fp16"):
            return Outcome("skipped", f"{shape.dtype} inputs: the peers take bf16 or fp16 only")
        if peer == "triton_fa":
            if pass_ == "bwd":
                return Outcome("skipped", TRITON_NO_BWD)
            if self.triton is None:
                return Outcome("skipped", self.triton_problem)
            dtype = self.torch.bfloat16 if shape.dtype == "bf16" else self.torch.float16
            problem = self.triton.supports(
                (shape.batch, shape.heads_q, shape.seqlen_q, shape.headdim),
                (shape.batch, shape.heads_kv, shape.seqlen_k, shape.headdim),
                (shape.batch, shape.heads_kv, shape.seqlen_k, shape.headdim_v), dtype)
            if problem:
                return Outcome("skipped", problem)
        return None

    def run(self, peer: str, shape: pc.Shape, pass_: str, state: ShapeState,
            cap_s: float) -> Outcome:
        """The peer checked, then timed once."""
        outcome, work = self.prepare(peer, shape, pass_, state)
        try:
            if work is None:
                return outcome
            return Outcome("ok", None, outcome.check, self.time_prepared(peer, shape, pass_, work,
                                                                         cap_s))
        except PeerTimingFailed as e:
            return Outcome("failed", str(e), outcome.check)
        except self.torch.cuda.OutOfMemoryError as e:
            release(self.torch)
            return Outcome("skipped", "out of device memory: " + first_lines(str(e), 1))
        finally:
            if peer == "sdpa_math":  # its S and P are large: give them back now
                release(self.torch)

    def prepare(self, peer: str, shape: pc.Shape, pass_: str,
                state: ShapeState) -> Tuple[Outcome, Optional[Callable[[], Any]]]:
        """The peer's output (gradients) checked once on the shape's inputs: (ok Outcome with the
        check, the call to time) or (skipped or failed Outcome, None)."""
        torch = self.torch
        early = self.precheck(peer, shape, pass_)
        if early:
            return early, None
        try:
            q, k, v, dout = state.tensors()
        except MemoryError as e:
            return Outcome("skipped", str(e)), None
        if peer == "sdpa_math":
            release(torch)
            free, _ = torch.cuda.mem_get_info()
            fits, why = pc.math_fits(shape, pass_, free)
            if not fits:
                return Outcome("skipped", why), None
        try:
            ref = state.reference(pass_)
        except torch.cuda.OutOfMemoryError as e:
            release(torch)
            return Outcome("skipped", "the float32 reference does not fit in device memory: "
                           + first_lines(str(e), 1)), None
        try:
            with backend_context(torch, peer):
                return self._prepare(peer, shape, pass_, q, k, v, dout, ref)
        except torch.cuda.OutOfMemoryError as e:
            release(torch)
            return Outcome("skipped", "out of device memory: " + first_lines(str(e), 1)), None

    def time_prepared(self, peer: str, shape: pc.Shape, pass_: str, work: Callable[[], Any],
                      cap_s: float) -> Dict[str, Any]:
        """One timing of a prepared peer (under its SDPA backend): PeerTimingFailed when the call
        raises, DeviceBroken on a CUDA error, torch's OutOfMemoryError as it comes."""
        torch = self.torch
        try:
            with backend_context(torch, peer):
                return self.time(work, cap_s)
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception as e:  # noqa: BLE001
            if is_cuda_error(e):
                raise DeviceBroken(f"{peer} {shape.describe()} {pass_}: {first_lines(str(e))}")
            raise PeerTimingFailed(f"timing raised {type(e).__name__}: "
                                   f"{first_lines(str(e))}") from None

    def _prepare(self, peer, shape, pass_, q, k, v, dout,
                 ref) -> Tuple[Outcome, Optional[Callable[[], Any]]]:
        torch = self.torch
        if peer == "triton_fa":
            fn = lambda q_, k_, v_, out=None: self.triton.triton_attention(  # noqa: E731
                q_, k_, v_, shape.causal, out=out)
        else:
            fn = sdpa_call(torch, shape)

        # First call: PyTorch may refuse the shape (RuntimeError "No available kernel" with the
        # reasons in UserWarnings); our kernel's failures are failures.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if pass_ == "fwd":
                    if peer == "triton_fa":  # poisoned output: unwritten elements stay NaN
                        poisoned = torch.full((shape.batch, shape.heads_q, shape.seqlen_q,
                                               shape.headdim_v), float("nan"), dtype=q.dtype,
                                              device=q.device)
                        out = fn(q, k, v, poisoned)
                    else:
                        out = fn(q, k, v)
                    torch.cuda.synchronize()
                else:
                    qg, kg, vg = (t.detach().requires_grad_(True) for t in (q, k, v))
                    out = fn(qg, kg, vg)
                    grads = torch.autograd.grad(out, (qg, kg, vg), dout, retain_graph=True)
                    torch.cuda.synchronize()
            except torch.cuda.OutOfMemoryError:
                raise
            except Exception as e:  # noqa: BLE001
                if is_cuda_error(e):
                    raise DeviceBroken(f"{peer} {shape.describe()} {pass_}: {first_lines(str(e))}")
                if peer == "triton_fa" and not isinstance(e, self.triton.TritonUnsupported):
                    return Outcome("failed", f"the Triton kernel raised {type(e).__name__}: "
                                             f"{first_lines(str(e), 6, 1200)}"), None
                return Outcome("skipped", refusal_reason(e, caught, pc.PEER_BACKEND[peer])), None

        if pass_ == "fwd":
            ok, check, why = check_forward(torch, ref, out)
            del out
        else:
            ok, check, why = check_backward(torch, ref, grads)
            del grads
        if not ok:
            return Outcome("failed", why, check), None
        if pass_ == "fwd":
            return Outcome("ok", None, check), lambda: fn(q, k, v)
        return Outcome("ok", None, check), lambda: torch.autograd.grad(out, (qg, kg, vg), dout,
                                                                      retain_graph=True)


# --------------------------------------------------------------------------------------------
# Main


class StopRequest:
    """First SIGINT: finish the current record, then stop. Second: stop now. SIGTERM: stop now."""

    def __init__(self):
        self.requested = False

    def install(self):
        signal.signal(signal.SIGINT, self._on_sigint)
        signal.signal(signal.SIGTERM, self._on_sigterm)

    def _on_sigint(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\ntorch_peers.py: interrupted; stopping after the current record (Ctrl-C again to "
              "stop now)", file=sys.stderr, flush=True)

    def _on_sigterm(self, signum, frame):
        self.requested = True
        raise KeyboardInterrupt

    def __call__(self) -> bool:
        return self.requested


def dry_run(shapes: List[pc.Shape], peers: List[str], passes: List[str]) -> int:
    total = len(shapes) * len(passes) * len(peers)
    print(f"{len(shapes)} shapes x {len(passes)} passes x {len(peers)} peers = {total} records")
    for i, s in enumerate(shapes):
        flops = ", ".join(f"{p} {pc.attention_flops(s, p) / 1e9:.1f} GFLOP" for p in passes)
        print(f"{i + 1:4d}  {s.describe():<40} {flops}")
    return EXIT_OK


def serve_peer(torch, options: pc.TimingOptions, peer: str, pass_: str) -> int:
    """--serve: fa4-analyze bench --ab drives the peer through pc.serve, preparing each shape
    (inputs drawn, output checked once) and timing it round by round between its own kernels'
    rounds. SIGINT is left to fa4-analyze, which ends the rounds; the end of stdin ends the peer.
    Standard output carries the replies alone: everything else printed goes to stderr."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr

    def write_line(text: str) -> None:
        replies.write(text + "\n")
        replies.flush()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.set_float32_matmul_precision("highest")  # the reference in true float32
    triton_module, triton_problem = (import_triton() if peer == "triton_fa" else (None, None))
    runner = Runner(torch, options, triton_module, triton_problem, lambda: False)
    current: Dict[str, Any] = {"state": None, "work": None, "shape": None}

    def prepare(shape: pc.Shape, seed: int):
        if current["state"] is not None:
            current["state"].free()
            current.update(state=None, work=None, shape=None)
            release(torch)
        state = ShapeState(torch, shape, seed, need_dout=pass_ == "bwd")
        outcome, work = runner.prepare(peer, shape, pass_, state)
        current.update(state=state, work=work, shape=shape)
        return outcome.status, outcome.reason, outcome.check

    def time_round() -> List[float]:
        try:
            timing = runner.time_prepared(peer, current["shape"], pass_, current["work"],
                                          options.time_cap_s)
        except PeerTimingFailed as e:
            raise pc.RoundError(str(e)) from None
        except torch.cuda.OutOfMemoryError as e:
            release(torch)
            raise pc.RoundError("out of device memory: " + first_lines(str(e), 1)) from None
        return timing["samples_s"]

    write_line(json.dumps({"ready": True, "kernel": peer, "source": pc.PEER_SOURCE[peer],
                           "device": torch.cuda.get_device_name(0)}))
    try:
        return pc.serve(sys.stdin.readline, write_line, prepare, time_round)
    except DeviceBroken as e:
        write_line(json.dumps({"error": f"CUDA error: {e}; the CUDA context is unusable"}))
        return EXIT_DEVICE_ERROR


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.check_environment:
        return check_environment()
    if args.list_peers:
        for name in pc.PEER_NAMES:
            print(f"{name} {pc.PEER_SOURCE[name]}")
        return EXIT_OK
    if args.serve:
        try:
            peers = pc.parse_peers(args.peers)
            if len(peers) != 1:
                raise pc.UsageError(f"--serve times one peer; --peers names {len(peers)}: give "
                                    "--peers NAME")
            if args.pass_ == "both":
                raise pc.UsageError("--serve times one pass: give --pass fwd or --pass bwd")
            options = options_from(args)
        except pc.UsageError as e:
            print(f"torch_peers.py: error: {e} (--help lists the options)", file=sys.stderr)
            return EXIT_USAGE
        try:
            torch = import_torch()
        except EnvironmentProblem as e:
            print(f"torch_peers.py: {e}", file=sys.stderr)
            return EXIT_ENVIRONMENT
        return serve_peer(torch, options, peers[0], args.pass_)
    try:
        if not args.sweep:
            raise pc.UsageError("give at least one --sweep FILE (e.g. data/sweeps/fa3-paper.json)")
        if not args.out and not args.dry_run:
            raise pc.UsageError("give --out FILE: the JSON Lines file the records are appended to")
        peers = pc.parse_peers(args.peers)
        passes = pc.passes_of(args.pass_)
        options = options_from(args)
        shapes = pc.load_sweeps(
            args.sweep, lambda text: print(f"torch_peers.py: note: {text}", file=sys.stderr))
    except pc.UsageError as e:
        print(f"torch_peers.py: error: {e} (--help lists the options)", file=sys.stderr)
        return EXIT_USAGE
    except pc.SweepError as e:
        print(f"torch_peers.py: error: bad sweep file: {e}\n(the sweep format: "
              "scripts/peers/README.md or lib/core/sweep.hpp; the shipped sweeps are in "
              "data/sweeps/)", file=sys.stderr)
        return EXIT_USAGE
    if args.dry_run:
        return dry_run(shapes, peers, passes)

    try:
        torch = import_torch()
    except EnvironmentProblem as e:
        print(f"torch_peers.py: {e}", file=sys.stderr)
        return EXIT_ENVIRONMENT

    stop = StopRequest()
    stop.install()
    try:
        if args.out == "-":
            sink = sys.stdout
        else:
            sink = open(args.out, "a", encoding="utf-8")
    except OSError as e:
        print(f"torch_peers.py: error: cannot open --out {args.out}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return measure(torch, args, options, shapes, peers, passes, sink, stop)
    except KeyboardInterrupt:
        print("torch_peers.py: stopped; the records written so far are complete lines",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if sink is not sys.stdout:
            sink.close()


def measure(torch, args, options, shapes, peers, passes, sink, stop: StopRequest) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.set_float32_matmul_precision("highest")  # the reference in true float32
    gpu = nvidia_smi_id(torch)
    context = run_context(torch, args.revision, gpu)
    triton_module, triton_problem = (import_triton() if "triton_fa" in peers else (None, None))
    runner = Runner(torch, options, triton_module, triton_problem, stop)
    total = len(shapes) * len(passes) * len(peers)
    print(f"torch_peers.py: run {context['run']} on {context['device']} (torch "
          f"{context['versions']['torch']}, CUDA {context['cuda']}, cuDNN "
          f"{context['versions']['cudnn']}, triton {context['versions']['triton']}): {total} "
          f"records -> {args.out}", file=sys.stderr, flush=True)
    index = 0
    for si, shape in enumerate(shapes):
        state = ShapeState(torch, shape, args.seed + si, need_dout="bwd" in passes)
        shape_began = time.monotonic()
        timed_left = sum(1 for p in passes for peer in peers
                         if not (peer == "triton_fa" and p == "bwd"))
        try:
            for pass_ in passes:
                for peer in peers:
                    timed = not (peer == "triton_fa" and pass_ == "bwd")
                    cap = pc.record_time_cap(options, args.max_seconds_per_shape,
                                             time.monotonic() - shape_began, timed_left)
                    try:
                        outcome = runner.run(peer, shape, pass_, state, cap)
                    except DeviceBroken as e:
                        record = pc.make_record(context, peer, shape, pass_, "failed",
                                                reason=f"CUDA error: {e}", measured_at=utc_now())
                        write(sink, record)
                        index += 1
                        print(pc.progress_line(index, total, record), file=sys.stderr)
                        print("torch_peers.py: the CUDA context is unusable after this error; "
                              "stopping (the records so far are written)", file=sys.stderr)
                        return EXIT_DEVICE_ERROR
                    if timed:
                        timed_left -= 1
                    clock = None
                    if outcome.status == "ok":
                        if not state.sm_clock_read:
                            state.sm_clock = sm_clock_mhz(gpu)
                            state.sm_clock_read = True
                        clock = state.sm_clock
                    record = pc.make_record(context, peer, shape, pass_, outcome.status,
                                            reason=outcome.reason, check=outcome.check,
                                            timing=outcome.timing, sm_clock_mhz=clock,
                                            measured_at=utc_now())
                    write(sink, record)
                    index += 1
                    print(pc.progress_line(index, total, record), file=sys.stderr, flush=True)
                    if stop():
                        print(f"torch_peers.py: stopped after {index} of {total} records",
                              file=sys.stderr)
                        return EXIT_INTERRUPTED
        finally:
            state.free()
            release(torch)
    return EXIT_OK


def write(sink, record: Dict[str, Any]) -> None:
    sink.write(pc.record_line(record) + "\n")
    sink.flush()


if __name__ == "__main__":
    sys.exit(main())
