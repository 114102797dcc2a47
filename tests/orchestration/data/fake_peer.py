#!/usr/bin/env python3
"""A stand-in for `torch_peers.py --serve` in peer_rounds_test.cpp: the real protocol loop
(peer_common.serve, from FA4_PEERS_DIR) with a fake peer, no PyTorch. Round n gives the samples
[n ms, 2 ms]; a causal shape is skipped. FAKE_PEER_MODE makes it fail as a real runner can:
exit-at-start (no PyTorch: exit 3 before the ready line), die-in-round-2 (a CUDA error: exit 4),
error-round (a round that raised)."""
import json
import os
import sys

sys.path.insert(0, os.environ["FA4_PEERS_DIR"])
import peer_common as pc  # noqa: E402

mode = os.environ.get("FAKE_PEER_MODE", "")
args = sys.argv[1:]
peer = args[args.index("--peers") + 1]
pass_ = args[args.index("--pass") + 1]
if mode == "exit-at-start":
    print("fake_peer.py: no PyTorch here", file=sys.stderr)
    sys.exit(3)


def write(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


write(json.dumps({"ready": True, "kernel": peer, "source": pc.PEER_SOURCE[peer],
                  "device": "Fake GPU"}))
rounds = [0]


def prepare(shape, seed):
    if shape.causal:
        return "skipped", f"{pass_}: no causal mask here", None
    return "ok", None, {"seed": seed}


def time_round():
    rounds[0] += 1
    if mode == "die-in-round-2" and rounds[0] == 2:
        sys.exit(4)
    if mode == "error-round":
        raise pc.RoundError("timing raised RuntimeError: boom")
    return [1e-3 * rounds[0], 2e-3]


sys.exit(pc.serve(sys.stdin.readline, write, prepare, time_round))
