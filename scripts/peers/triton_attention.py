"""A FlashAttention-2-style attention forward in Triton, written for this project as the
`triton_fa` peer (source `peer:triton`) of scripts/peers/torch_peers.py.

    from triton_attention import triton_attention
    o = triton_attention(q, k, v, causal)    # q (B, H, Sq, D), k (B, Hkv, Sk, D), v (B, Hkv, Sk, Dv)

Algorithm (FlashAttention-2, forward only)
    Each program owns one BLOCK_M-row tile of queries of one (batch, head) and keeps it in
    registers. It walks the keys in BLOCK_N-wide tiles: S = Q K^T on the tensor cores (fp32
    accumulate), already in log2 units because softmax_scale * log2(e) is folded into that product,
    so P = exp2(S - m) needs no extra multiply. The online softmax keeps per row the running
    maximum m and sum l: a new tile with maximum m' rescales the accumulator and l by
    exp2(m - m'), then adds P V (P rounded to the input dtype, as FlashAttention does). After the
    last tile O = acc / l is written in the input dtype. Rows that see no key (causal with
    Sq > Sk) produce 0, as the project's reference does.
    Causal masking is bottom-right aligned like the rest of the project: query i sees the keys
    j <= i + Sk - Sq. The key loop has two phases: tiles every row of the block sees completely,
    with no mask arithmetic at all, then the few tiles on the diagonal or past the end of the keys
    (masked with -inf). Tiles entirely above the diagonal are never visited (the early exit that
    halves causal work).
    GQA / MQA: query head h reads kv head h // (H / Hkv); nothing is copied.
    Any sequence length: loads past Sq or Sk are masked, the tail key tile is masked to -inf.
    No LSE is written (there is no Triton backward here).

Launch grid
    (ceil(Sq / BLOCK_M), B * H). Axis 0 varies fastest, so the query tiles of one (batch, head)
    run together and share its K/V in L2. For causal problems axis 0 is reversed (the program with
    the highest query tile, i.e. the most keys, starts first) so the long tiles do not form the
    tail of the last wave.

Tiles (a fixed table per head dim; the first entry that compiles is kept)
    hd <= 64 : BLOCK_M 128, BLOCK_N 64, 4 warps, 3 stages. Q tile 16 KiB, K+V stages 3 x 16 KiB.
    hd 128   : BLOCK_M 128, BLOCK_N 64, 8 warps, 3 stages. Two warpgroups of 64 rows (the Hopper
               wgmma M); 32 + 3 x 32 KiB of shared memory; the 128x128 fp32 accumulator is 64
               registers per thread, which leaves room for S and P of a 64-wide key tile.
    hd 256   : BLOCK_M 64, BLOCK_N 64, 4 warps, 2 stages: the 64x256 accumulator already costs 128
               registers per thread and a K+V stage is 64 KiB, so larger tiles spill or do not
               fit in 227 KiB of shared memory.
    Smaller fallbacks follow in each list (fewer stages, then smaller tiles) in case a Triton
    version refuses the first for shared memory. There is no autotuning: the tile is fixed
    before anything is timed, and the first call (the correctness check) compiles it.

Head dims: D and Dv must be powers of two between 16 and 256 (tl.arange and tl.dot need it);
others raise TritonUnsupported with the reason. Inputs bf16 or fp16, CUDA, any strides.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


class TritonUnsupported(ValueError):
    """The kernel does not handle this input (the runner records the peer as skipped)."""


# (BLOCK_M, BLOCK_N, num_warps, num_stages), first choice first.
_TILES: Dict[int, List[Tuple[int, int, int, int]]] = {
    16: [(128, 64, 4, 3), (64, 64, 4, 2)],
    32: [(128, 64, 4, 3), (64, 64, 4, 2)],
    64: [(128, 64, 4, 3), (128, 64, 4, 2), (64, 64, 4, 2)],
    128: [(128, 64, 8, 3), (128, 64, 8, 2), (64, 64, 4, 2)],
    256: [(64, 64, 4, 2), (64, 32, 4, 2), (32, 32, 4, 1)],
}

# (max head dim, dtype, causal, device index) -> the tile that compiled.
_chosen: Dict[tuple, Tuple[int, int, int, int]] = {}


@triton.jit
def _key_tiles(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
               offs_m, offs_n, offs_d, offs_dv, key_begin, key_end, seqlen_k, diagonal,
               qk_scale_log2, BLOCK_N: tl.constexpr, MASKED: tl.constexpr,
               CAUSAL: tl.constexpr):
    """Folds the key tiles [key_begin, key_end) into (acc, l_i, m_i). MASKED tiles may hold keys
    past seqlen_k or (causal) above the diagonal; the others are visible to every row."""
    for start_n in range(key_begin, key_end, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        k_ptrs = k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd
        v_ptrs = v_base + cols[:, None] * stride_vn + offs_dv[None, :] * stride_vd
        if MASKED:
            k = tl.load(k_ptrs, mask=cols[:, None] < seqlen_k, other=0.0)
        else:
            k = tl.load(k_ptrs)
        # Scores in log2 units: (q . k) * softmax_scale * log2(e), fp32.
        s = tl.dot(q, tl.trans(k)) * qk_scale_log2
        if MASKED:
            visible = cols[None, :] < seqlen_k
            if CAUSAL:
                visible = visible & (cols[None, :] <= offs_m[:, None] + diagonal)
            s = tl.where(visible, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        if MASKED:
            # A row with no visible key so far keeps m = -inf; subtract 0 instead so that
            # exp2(-inf - (-inf)) never makes a NaN. Its P is 0 and its l stays 0.
            m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        else:
            m_use = m_new
        p = tl.exp2(s - m_use[:, None])
        alpha = tl.exp2(m_i - m_use)
        l_i = l_i * alpha + tl.sum(p, 1)
        if MASKED:
            v = tl.load(v_ptrs, mask=cols[:, None] < seqlen_k, other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc=acc)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def _flash_fwd(Q, K, V, O, qk_scale_log2,
               stride_qb, stride_qh, stride_qm, stride_qd,
               stride_kb, stride_kh, stride_kn, stride_kd,
               stride_vb, stride_vh, stride_vn, stride_vd,
               stride_ob, stride_oh, stride_om, stride_od,
               heads_q, group, seqlen_q, seqlen_k,
               CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_D: tl.constexpr, BLOCK_DV: tl.constexpr):
    if CAUSAL:  # the query tiles with the most keys first
        pid_m = tl.num_programs(0) - 1 - tl.program_id(0)
    else:
        pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    batch = (pid_bh // heads_q).to(tl.int64)
    head = pid_bh % heads_q
    kv_head = (head // group).to(tl.int64)
    head = head.to(tl.int64)

    q_base = Q + batch * stride_qb + head * stride_qh
    k_base = K + batch * stride_kb + kv_head * stride_kh
    v_base = V + batch * stride_vb + kv_head * stride_vh
    o_base = O + batch * stride_ob + head * stride_oh

    first_row = pid_m * BLOCK_M
    offs_m = first_row + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)

    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=offs_m[:, None] < seqlen_q, other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_DV], dtype=tl.float32)

    # Bottom-right causal: row i sees keys j <= i + diagonal.
    diagonal = seqlen_k - seqlen_q
    if CAUSAL:
        last_row = tl.minimum(first_row + BLOCK_M, seqlen_q) - 1
        key_end = tl.minimum(tl.maximum(last_row + diagonal + 1, 0), seqlen_k)
        seen_by_all = tl.minimum(tl.maximum(first_row + diagonal + 1, 0), seqlen_k)
    else:
        key_end = seqlen_k
        seen_by_all = seqlen_k
    full_end = (seen_by_all // BLOCK_N) * BLOCK_N  # unmasked tiles: [0, full_end)

    acc, l_i, m_i = _key_tiles(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd,
                               stride_vn, stride_vd, offs_m, offs_n, offs_d, offs_dv,
                               0, full_end, seqlen_k, diagonal, qk_scale_log2,
                               BLOCK_N=BLOCK_N, MASKED=False, CAUSAL=CAUSAL)
    acc, l_i, m_i = _key_tiles(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd,
                               stride_vn, stride_vd, offs_m, offs_n, offs_d, offs_dv,
                               full_end, key_end, seqlen_k, diagonal, qk_scale_log2,
                               BLOCK_N=BLOCK_N, MASKED=True, CAUSAL=CAUSAL)

    l_safe = tl.where(l_i == 0.0, 1.0, l_i)  # rows with no visible key: O = 0
    out = acc / l_safe[:, None]
    tl.store(o_base + offs_m[:, None] * stride_om + offs_dv[None, :] * stride_od,
             out.to(O.dtype.element_ty), mask=offs_m[:, None] < seqlen_q)


def _check_dim(name: str, value: int) -> None:
    if value < 16 or value > 256 or value & (value - 1):
        raise TritonUnsupported(
            f"triton_fa handles {name} 16, 32, 64, 128 or 256 (a power of two: tl.arange and "
            f"tl.dot need one, and the tile table stops at 256); got {name} {value}")


def supports(q_shape: Tuple[int, ...], k_shape: Tuple[int, ...], v_shape: Tuple[int, ...],
             dtype: torch.dtype) -> Optional[str]:
    """None when triton_attention takes these inputs, else the reason it does not."""
    try:
        _validate(q_shape, k_shape, v_shape, dtype)
    except TritonUnsupported as e:
        return str(e)
    return None


def _validate(q_shape, k_shape, v_shape, dtype) -> None:
    if dtype not in (torch.bfloat16, torch.float16):
        raise TritonUnsupported(f"triton_fa takes bf16 or fp16 inputs, got {dtype}")
    if len(q_shape) != 4 or len(k_shape) != 4 or len(v_shape) != 4:
        raise TritonUnsupported("triton_fa takes (batch, heads, seqlen, headdim) tensors")
    b, h, _, d = q_shape
    bk, hkv, sk, dk = k_shape
    bv, hv, skv, dv = v_shape
    if bk != b or bv != b or hv != hkv or skv != sk or dk != d:
        raise TritonUnsupported(f"triton_fa: inconsistent shapes q {tuple(q_shape)}, "
                                f"k {tuple(k_shape)}, v {tuple(v_shape)}")
    if h % hkv:
        raise TritonUnsupported(f"triton_fa: {h} query heads are not a multiple of {hkv} kv heads")
    _check_dim("headdim", d)
    _check_dim("headdim_v", dv)


def triton_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                     out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """softmax(Q K^T / sqrt(D), bottom-right causal mask if `causal`) V, in the input dtype.
    q (B, H, Sq, D), k (B, Hkv, Sk, D), v (B, Hkv, Sk, Dv) with H % Hkv == 0; `out` (B, H, Sq,
    Dv), when given, is written in place (the runner passes a NaN-filled one to catch rows the
    kernel does not write)."""
    _validate(tuple(q.shape), tuple(k.shape), tuple(v.shape), q.dtype)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise TritonUnsupported("triton_fa: q, k and v must have one dtype")
    if not (q.is_cuda and k.is_cuda and v.is_cuda):
        raise TritonUnsupported("triton_fa runs on CUDA tensors")
    b, h, sq, d = q.shape
    hkv, sk, dv = k.shape[1], k.shape[2], v.shape[3]
    if out is None:
        out = torch.empty((b, h, sq, dv), device=q.device, dtype=q.dtype)
    elif tuple(out.shape) != (b, h, sq, dv) or out.dtype != q.dtype:
        raise TritonUnsupported("triton_fa: `out` must be (B, H, Sq, Dv) in the input dtype")
    qk_scale_log2 = LOG2E / math.sqrt(d)
    key = (max(d, dv), q.dtype, bool(causal), q.device.index)
    tiles = [_chosen[key]] if key in _chosen else _TILES[max(d, dv)]
    errors = []
    for tile in tiles:
        block_m, block_n, warps, stages = tile
        grid = (triton.cdiv(sq, block_m), b * h)
        try:
            _flash_fwd[grid](q, k, v, out, qk_scale_log2,
                             *q.stride(), *k.stride(), *v.stride(), *out.stride(),
                             h, h // hkv, sq, sk,
                             CAUSAL=bool(causal), BLOCK_M=block_m, BLOCK_N=block_n,
                             BLOCK_D=d, BLOCK_DV=dv, num_warps=warps, num_stages=stages)
        except Exception as e:  # noqa: BLE001 - a tile this Triton/GPU refuses: try the next
            resources = ("OutOfResources" in type(e).__name__
                         or "out of resource" in str(e).lower())
            if key in _chosen or not resources:
                raise
            errors.append(f"BLOCK_M {block_m} BLOCK_N {block_n} warps {warps} stages {stages}: "
                          f"{str(e).splitlines()[0] if str(e) else type(e).__name__}")
            continue
        _chosen[key] = tile
        return out
    raise RuntimeError("triton_fa: no tile of the table compiles on this GPU: " + "; ".join(errors))


def chosen_tile(headdim: int, dtype: torch.dtype, causal: bool, device_index: int = 0):
    """The (BLOCK_M, BLOCK_N, num_warps, num_stages) in use for these inputs, or None before the
    first call."""
    return _chosen.get((headdim, dtype, bool(causal), device_index))
