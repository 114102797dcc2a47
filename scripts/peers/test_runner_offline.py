#!/usr/bin/env python3
"""Tests of the peer runner that need neither PyTorch nor a GPU: sweep files (both forms, malformed
ones and the CLI's exit 2), the FLOP convention, the statistics and stopping rule, the per-shape
time budget, the math backend's memory estimate, the check rows, and the JSON record.

    python3 scripts/peers/test_runner_offline.py
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import peer_common as pc  # noqa: E402

RUNNER = os.path.join(HERE, "torch_peers.py")
SWEEPS = os.path.join(ROOT, "data", "sweeps")
HAVE_TORCH = importlib.util.find_spec("torch") is not None


def write_json(folder, name, content):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(content if isinstance(content, str) else json.dumps(content))
    return path


def run_cli(*args):
    done = subprocess.run([sys.executable, RUNNER, *args], capture_output=True, text=True,
                          timeout=120)
    return done.returncode, done.stdout, done.stderr


class SweepGridTest(unittest.TestCase):
    def test_fa3_paper_expands_like_sweep_cpp(self):
        sweep = pc.load_sweep(os.path.join(SWEEPS, "fa3-paper.json"))
        self.assertEqual(sweep.name, "fa3-paper")
        self.assertEqual(len(sweep.shapes), 36)  # 3 head dims x 6 seqlens x 2 masks
        first, second, last = sweep.shapes[0], sweep.shapes[1], sweep.shapes[-1]
        # headdim outermost, then seqlen, then causal (false before true, as listed)
        self.assertEqual(first, pc.Shape(32, 32, 32, 512, 512, 64, 64, False, "bf16"))
        self.assertEqual(second, pc.Shape(32, 32, 32, 512, 512, 64, 64, True, "bf16"))
        self.assertEqual(sweep.shapes[2].seqlen_q, 1024)
        self.assertEqual(sweep.shapes[12].headdim, 128)
        self.assertEqual(last, pc.Shape(1, 8, 8, 16384, 16384, 256, 256, True, "bf16"))

    def test_batch_is_at_least_one(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_json(d, "s.json", {"name": "x", "grid": {
                "total_tokens": 100, "hidden": 256, "headdims": [128], "seqlens": [1000],
                "causal": [False]}})
            (shape,) = pc.load_sweep(path).shapes
        self.assertEqual((shape.batch, shape.heads_q, shape.dtype), (1, 2, "bf16"))

    def test_grid_then_shapes(self):
        doc = {"name": "both", "grid": {"total_tokens": 4096, "hidden": 1024, "headdims": [64],
                                        "seqlens": [4096], "causal": [True], "dtype": "fp16"},
               "shapes": [{"batch": 2, "heads": 8, "seqlen": 128, "headdim": 64}]}
        shapes = pc.parse_sweep(doc, "mem").shapes
        self.assertEqual(len(shapes), 2)
        self.assertEqual(shapes[0], pc.Shape(1, 16, 16, 4096, 4096, 64, 64, True, "fp16"))
        self.assertEqual(shapes[1], pc.Shape(2, 8, 8, 128, 128, 64, 64, False, "bf16"))


class SweepShapesTest(unittest.TestCase):
    def test_llama3(self):
        shapes = pc.load_sweep(os.path.join(SWEEPS, "llama3.json")).shapes
        self.assertEqual(len(shapes), 11)
        self.assertEqual(shapes[0], pc.Shape(16, 32, 8, 1024, 1024, 128, 128, True, "bf16"))
        self.assertEqual(shapes[-1], pc.Shape(64, 32, 8, 1, 8192, 128, 128, True, "bf16"))
        self.assertEqual(shapes[-1].describe(), "b64 h32/8 s1x8192 d128 causal bf16")
        self.assertEqual(shapes[-1].group, 4)

    def test_optional_fields(self):
        shape = pc.parse_shape({"batch": 1, "heads": 4, "heads_kv": 2, "seqlen_q": 10,
                                "seqlen_k": 20, "headdim": 64, "headdim_v": 32, "causal": True,
                                "dtype": "fp16"}, "x")
        self.assertEqual(shape, pc.Shape(1, 4, 2, 10, 20, 64, 32, True, "fp16"))
        self.assertEqual(shape.describe(), "b1 h4/2 s10x20 d64/32 causal fp16")

    def test_a_side_length_overrides_seqlen_as_in_sweep_cpp(self):
        shape = pc.parse_shape({"batch": 1, "heads": 4, "seqlen": 1024, "seqlen_q": 512,
                                "headdim": 64}, "x")
        self.assertEqual((shape.seqlen_q, shape.seqlen_k), (512, 1024))
        with self.assertRaisesRegex(pc.SweepError, 'x/seqlen_k: missing'):
            pc.parse_shape({"batch": 1, "heads": 4, "seqlen_q": 512, "headdim": 64}, "x")

    def test_serving_shapes_are_left_out_and_named(self):
        doc = {"name": "d", "shapes": [
            {"batch": 8, "heads": 32, "heads_kv": 8, "seqlen_q": 1, "seqlen_k": 8192,
             "headdim": 128},
            {"batch": 8, "heads": 32, "heads_kv": 8, "seqlen_q": 1, "seqlen_k": 8192,
             "headdim": 128, "page_size": 16},
            {"batch": 2, "heads": 32, "heads_kv": 8, "seqlen_q": 1, "seqlens_k": [8, 7],
             "headdim": 128}]}
        sweep = pc.parse_sweep(doc, "mem")
        self.assertEqual(len(sweep.shapes), 1)
        self.assertEqual(sweep.left_out, ["/shapes/1", "/shapes/2"])
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "d.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            notes = []
            self.assertEqual(len(pc.load_sweeps([path], notes.append)), 1)
        self.assertEqual(len(notes), 1)
        self.assertIn("2 paged, ragged or split shapes left out (/shapes/1, /shapes/2)", notes[0])

    def test_every_shipped_sweep_parses(self):
        for name in sorted(os.listdir(SWEEPS)):
            if name.endswith(".json"):
                with self.subTest(name):
                    self.assertTrue(pc.load_sweep(os.path.join(SWEEPS, name)).shapes)


class MalformedSweepTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def error_of(self, content, name="bad.json"):
        path = write_json(self.dir.name, name, content)
        with self.assertRaises(pc.SweepError) as caught:
            pc.load_sweep(path)
        return path, str(caught.exception)

    def test_bad_json(self):
        path, message = self.error_of('{"name": "x", "grid": {', "broken.json")
        self.assertTrue(message.startswith(path + ": not valid JSON ("), message)
        self.assertIn("fix the file", message)

    def test_nan_is_not_json(self):
        _, message = self.error_of('{"name": "x", "shapes": [{"batch": NaN}]}')
        self.assertIn("not valid JSON", message)

    def test_missing_file(self):
        with self.assertRaises(pc.SweepError) as caught:
            pc.load_sweep(os.path.join(self.dir.name, "nowhere.json"))
        self.assertIn("cannot open the sweep file", str(caught.exception))
        self.assertIn("data/sweeps/", str(caught.exception))

    def test_missing_grid_field(self):
        path, message = self.error_of({"name": "x", "grid": {
            "total_tokens": 16384, "headdims": [64], "seqlens": [512], "causal": [False]}})
        self.assertEqual(message, f"{path}: /grid/hidden: missing; expected a positive integer")

    def test_missing_shape_field(self):
        path, message = self.error_of({"name": "x", "shapes": [
            {"batch": 1, "heads": 2, "seqlen": 4, "headdim": 64},
            {"batch": 1, "seqlen": 4, "headdim": 64}]})
        self.assertEqual(message, f"{path}: /shapes/1/heads: missing; expected a positive integer")

    def test_missing_name(self):
        path, message = self.error_of({"shapes": []})
        self.assertEqual(message, f"{path}: /name: missing; expected a string")

    def test_no_shapes(self):
        path, message = self.error_of({"name": "x", "shapes": []})
        self.assertEqual(message, f"{path}: no shapes: give a /grid or a non-empty /shapes array")

    def test_bool_is_not_an_integer(self):
        _, message = self.error_of({"name": "x", "shapes": [
            {"batch": True, "heads": 2, "seqlen": 4, "headdim": 64}]})
        self.assertIn("/shapes/0/batch: expected a positive integer, got true", message)

    def test_float_is_not_an_integer(self):
        _, message = self.error_of({"name": "x", "shapes": [
            {"batch": 1, "heads": 2, "seqlen": 4.0, "headdim": 64}]})
        self.assertIn("/shapes/0/seqlen: expected a positive integer, got 4.0", message)

    def test_headdim_must_divide_hidden(self):
        _, message = self.error_of({"name": "x", "grid": {
            "total_tokens": 16384, "hidden": 2048, "headdims": [64, 96], "seqlens": [512],
            "causal": [False]}})
        self.assertIn("/grid/headdims/1: expected a positive integer dividing hidden = 2048",
                      message)

    def test_causal_must_be_bool(self):
        _, message = self.error_of({"name": "x", "grid": {
            "total_tokens": 16384, "hidden": 2048, "headdims": [64], "seqlens": [512],
            "causal": [0]}})
        self.assertIn("/grid/causal/0: expected true or false", message)

    def test_seqlen_missing(self):
        _, message = self.error_of({"name": "x", "shapes": [
            {"batch": 1, "heads": 2, "seqlen_k": 4, "headdim": 64}]})
        self.assertIn('/shapes/0/seqlen_q: missing; give "seqlen" (both lengths), or "seqlen_q" '
                      'and "seqlen_k"', message)

    def test_gqa_heads_must_divide(self):
        _, message = self.error_of({"name": "x", "shapes": [
            {"batch": 1, "heads": 6, "heads_kv": 4, "seqlen": 4, "headdim": 64}]})
        self.assertIn("/shapes/0: impossible shape: heads = 6 is not divisible by heads-kv = 4",
                      message)

    def test_bad_dtype(self):
        _, message = self.error_of({"name": "x", "shapes": [
            {"batch": 1, "heads": 2, "seqlen": 4, "headdim": 64, "dtype": "fp32"}]})
        self.assertIn("/shapes/0/dtype: unknown dtype 'fp32': use bf16, fp16 or fp8", message)


class CliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def test_help_without_torch(self):
        code, out, _ = run_cli("--help")
        self.assertEqual(code, 0)
        self.assertIn("--max-seconds-per-shape", out)

    def test_bad_json_exits_2_naming_the_file(self):
        path = write_json(self.dir.name, "broken.json", "{")
        code, _, err = run_cli("--sweep", path, "--out", os.path.join(self.dir.name, "o.jsonl"))
        self.assertEqual(code, 2)
        self.assertIn(f"bad sweep file: {path}: not valid JSON", err)

    def test_missing_field_exits_2_with_the_path(self):
        path = write_json(self.dir.name, "s.json", {"name": "x", "shapes": [
            {"batch": 1, "heads": 2, "headdim": 64}]})
        code, _, err = run_cli("--sweep", path, "--out", os.path.join(self.dir.name, "o.jsonl"))
        self.assertEqual(code, 2)
        self.assertIn(f"{path}: /shapes/0/seqlen: missing", err)

    def test_unknown_peer_exits_2(self):
        code, _, err = run_cli("--sweep", os.path.join(SWEEPS, "llama3.json"), "--peers",
                               "sdpa_flash,fa9", "--out", os.path.join(self.dir.name, "o.jsonl"))
        self.assertEqual(code, 2)
        self.assertIn("unknown peer(s) fa9", err)

    def test_missing_out_exits_2(self):
        code, _, err = run_cli("--sweep", os.path.join(SWEEPS, "llama3.json"))
        self.assertEqual(code, 2)
        self.assertIn("--out", err)

    def test_dry_run_without_torch(self):
        code, out, _ = run_cli("--sweep", os.path.join(SWEEPS, "fa3-paper.json"), "--dry-run")
        self.assertEqual(code, 0)
        self.assertIn("36 shapes x 2 passes x 5 peers = 360 records", out)

    @unittest.skipIf(HAVE_TORCH, "PyTorch is installed here")
    def test_without_torch_exits_3(self):
        code, _, err = run_cli("--check-environment")
        self.assertEqual(code, 3)
        self.assertIn("PyTorch is not installed for python3", err)
        code, _, err = run_cli("--sweep", os.path.join(SWEEPS, "llama3.json"), "--out",
                               os.path.join(self.dir.name, "o.jsonl"))
        self.assertEqual(code, 3)
        self.assertIn("PyTorch is not installed for python3", err)
        self.assertFalse(os.path.exists(os.path.join(self.dir.name, "o.jsonl")))

    def test_gpu_modules_compile(self):
        for name in ("torch_peers.py", "triton_attention.py"):
            with open(os.path.join(HERE, name), encoding="utf-8") as f:
                compile(f.read(), name, "exec")


class FlopsTest(unittest.TestCase):
    def test_causal_seqlen_q_below_seqlen_k_by_hand(self):
        # sq = 4, sk = 6, causal bottom-right: rows see 3, 4, 5, 6 keys (18 pairs). The project's
        # convention counts the square's diagonal half: sq * (sk - sq) + sq^2 / 2 = 8 + 8 = 16
        # (the exact count minus sq / 2).
        s = pc.Shape(2, 3, 3, 4, 6, 64, 32, True, "bf16")
        exact = sum(pc.visible_keys(s, i) for i in range(s.seqlen_q))
        self.assertEqual(exact, 3 + 4 + 5 + 6)
        self.assertEqual(pc.unmasked_pairs(s), 16.0)
        self.assertEqual(pc.unmasked_pairs(s), exact - s.seqlen_q / 2)
        # fwd = 2 * batch * heads_q * pairs * (headdim + headdim_v) = 2 * 2 * 3 * 16 * 96
        self.assertEqual(pc.attention_flops(s, "fwd"), 18432.0)
        self.assertEqual(pc.attention_flops(s, "bwd"), 2.5 * 18432.0)

    def test_causal_seqlen_q_above_seqlen_k(self):
        s = pc.Shape(1, 1, 1, 10, 4, 64, 64, True, "bf16")
        self.assertEqual(pc.unmasked_pairs(s), 8.0)  # sk^2 / 2
        self.assertEqual(pc.rows_without_keys(s), 6)
        self.assertEqual([pc.visible_keys(s, i) for i in range(10)], [0] * 6 + [1, 2, 3, 4])

    def test_fa3_point(self):
        s = pc.Shape(4, 16, 16, 4096, 4096, 128, 128, False, "bf16")
        self.assertEqual(pc.attention_flops(s, "fwd"), 4.0 * 4 * 16 * 4096 * 4096 * 128)
        causal = pc.Shape(4, 16, 16, 4096, 4096, 128, 128, True, "bf16")
        self.assertEqual(pc.attention_flops(causal, "fwd"), pc.attention_flops(s, "fwd") / 2)


class StatisticsTest(unittest.TestCase):
    def test_quantiles_interpolate_like_stats_cpp(self):
        st = pc.summarize([4.0, 1.0, 3.0, 2.0])
        self.assertEqual(st["median_s"], 2.5)
        self.assertEqual(st["p25_s"], 1.75)
        self.assertEqual(st["p75_s"], 3.25)
        self.assertEqual((st["min_s"], st["max_s"]), (1.0, 4.0))
        self.assertEqual(st["samples_s"], [4.0, 1.0, 3.0, 2.0])  # in the order taken
        self.assertAlmostEqual(pc.relative_iqr([4.0, 1.0, 3.0, 2.0]), 1.5 / 2.5)
        self.assertEqual(pc.relative_iqr([1.0]), 0.0)

    def test_stopping_rule(self):
        o = pc.TimingOptions(min_samples=10, max_samples=20, target_relative_iqr=0.02,
                             time_cap_s=3.0)
        steady = [1.0e-3] * 9
        self.assertFalse(pc.should_stop(steady, 0.1, o))  # below min_samples, even if steady
        self.assertFalse(pc.should_stop(steady, 99.0, o))  # ... or past the cap
        self.assertTrue(pc.should_stop(steady + [1.0e-3], 0.1, o))  # IQR 0 < 2%
        noisy = [1.0e-3, 1.2e-3] * 5  # IQR / median = 0.2 / 1.1
        self.assertFalse(pc.should_stop(noisy, 0.1, o))
        self.assertTrue(pc.should_stop(noisy, 3.5, o))  # time cap
        self.assertFalse(pc.should_stop(noisy, 3.5, o, time_cap_s=5.0))  # cap overridden
        self.assertTrue(pc.should_stop(noisy * 2, 0.1, o))  # max_samples
        # just under / over the target: 10 samples, quartiles 1.0 and 1.015 of median ~1.0
        tight = [1.0] * 5 + [1.015] * 5
        self.assertLess(pc.relative_iqr(tight), 0.02)
        self.assertTrue(pc.should_stop(tight, 0.0, o))
        loose = [1.0] * 5 + [1.03] * 5
        self.assertGreater(pc.relative_iqr(loose), 0.02)
        self.assertFalse(pc.should_stop(loose, 0.0, o))

    def test_per_shape_budget(self):
        o = pc.TimingOptions(time_cap_s=3.0)
        self.assertEqual(pc.record_time_cap(o, 8.0, 0.0, 8), 1.0)
        self.assertEqual(pc.record_time_cap(o, 8.0, 0.0, 2), 3.0)  # never above the record cap
        self.assertEqual(pc.record_time_cap(o, 8.0, 9.0, 3), 0.0)  # spent: min_samples only
        self.assertEqual(pc.record_time_cap(o, 0.0, 100.0, 3), 3.0)  # 0 = no budget


class RecordTest(unittest.TestCase):
    CONTEXT = {"run": "0" * 32, "device": "NVIDIA H100 80GB HBM3", "driver": "580.1",
               "cuda": "13.0", "versions": {"torch": "2.11.0", "triton": "3.6.0",
                                            "cudnn": "91900", "python": "3.12.3"},
               "revision": None, "host": "h"}
    SHAPE = pc.Shape(4, 16, 16, 4096, 4096, 128, 128, True, "bf16")

    def test_ok_record(self):
        timing = pc.summarize([0.9e-3, 0.912e-3, 0.95e-3])
        rec = pc.make_record(self.CONTEXT, "sdpa_cudnn", self.SHAPE, "fwd", "ok",
                             check={"max_abs_error": 0.003, "tolerance": "t",
                                    "rows_checked": 258},
                             timing=timing, sm_clock_mhz=1980.0,
                             measured_at="2026-11-22T03:00:00Z")
        self.assertEqual(list(rec), pc.RECORD_KEYS)
        self.assertEqual(rec["schema"], "fa4-peer/1")
        self.assertEqual(rec["source"], "peer:torch-cudnn")
        self.assertEqual(rec["shape"], {"batch": 4, "heads_q": 16, "heads_kv": 16,
                                        "seqlen_q": 4096, "seqlen_k": 4096, "headdim": 128,
                                        "headdim_v": 128, "causal": True, "dtype": "bf16"})
        self.assertIsNone(rec["reason"])
        self.assertEqual(rec["median_s"], 0.912e-3)
        self.assertAlmostEqual(rec["tflops"],
                               pc.attention_flops(self.SHAPE, "fwd") / 0.912e-3 / 1e12)
        self.assertEqual(rec["sm_clock_mhz"], 1980.0)
        back = json.loads(pc.record_line(rec))
        self.assertEqual(back, rec)
        line = pc.progress_line(12, 216, rec)
        self.assertRegex(line, r"^\[12/216\] sdpa_cudnn b4 h16 s4096 d128 causal bf16 fwd: "
                               r"\d+\.\d TFLOP/s \(median 0\.912 ms, 3 samples\)$")

    def test_skipped_record_has_nulls(self):
        rec = pc.make_record(self.CONTEXT, "triton_fa", self.SHAPE, "bwd", "skipped",
                             reason="no Triton backward kernel in this project",
                             sm_clock_mhz=1980.0, measured_at="2026-11-22T03:00:00Z")
        self.assertEqual(list(rec), pc.RECORD_KEYS)
        self.assertEqual(rec["source"], "peer:triton")
        for key in pc.TIMING_KEYS + ["tflops", "sm_clock_mhz", "check"]:
            self.assertIsNone(rec[key], key)
        self.assertEqual(rec["reason"], "no Triton backward kernel in this project")
        self.assertEqual(json.loads(pc.record_line(rec)), rec)
        self.assertTrue(pc.progress_line(1, 2, rec).endswith(
            "bwd: skipped: no Triton backward kernel in this project"))

    def test_failed_record_keeps_its_check(self):
        check = {"max_abs_error": 0.5, "tolerance": "t", "rows_checked": 10}
        rec = pc.make_record(self.CONTEXT, "sdpa_math", self.SHAPE, "fwd", "failed",
                             reason="differs", check=check, measured_at="x")
        self.assertEqual(rec["check"], check)
        self.assertIsNone(rec["median_s"])

    def test_invalid_records_refused(self):
        with self.assertRaises(ValueError):
            pc.make_record(self.CONTEXT, "sdpa_flash", self.SHAPE, "fwd", "ok")
        with self.assertRaises(ValueError):
            pc.make_record(self.CONTEXT, "sdpa_flash", self.SHAPE, "fwd", "skipped")
        with self.assertRaises(ValueError):
            pc.make_record(self.CONTEXT, "sdpa_flash", self.SHAPE, "fwd", "maybe", reason="r")
        with self.assertRaises(ValueError):  # NaN is not JSON
            pc.record_line({"x": float("nan")})

    def test_sources_are_fixed(self):
        self.assertEqual(pc.PEER_SOURCE, {
            "sdpa_flash": "peer:torch-flash", "sdpa_cudnn": "peer:torch-cudnn",
            "sdpa_efficient": "peer:torch-efficient", "sdpa_math": "peer:torch-math",
            "triton_fa": "peer:triton"})


class HelpersTest(unittest.TestCase):
    def test_check_rows(self):
        self.assertEqual(pc.check_rows(1024, 1024, False), list(range(1024)))
        rows = pc.check_rows(16384, 16384, True)
        self.assertEqual(rows, sorted(set(rows)))
        self.assertIn(0, rows)
        self.assertIn(16383, rows)
        self.assertLessEqual(len(rows), 258)
        self.assertGreater(len(rows), 200)
        rows = pc.check_rows(4096, 1024, True)  # first row that sees a key: 3072
        self.assertIn(3071, rows)
        self.assertIn(3072, rows)

    def test_math_memory(self):
        small = pc.Shape(4, 16, 16, 1024, 1024, 128, 128, False, "bf16")
        fits, _ = pc.math_fits(small, "fwd", 80 << 30)
        self.assertTrue(fits)
        big = pc.Shape(1, 32, 32, 16384, 16384, 64, 64, True, "bf16")
        need = pc.math_bytes_needed(big, "fwd")
        self.assertGreaterEqual(need, 32 * 16384 * 16384 * 8)  # at least S and P
        self.assertEqual(pc.math_bytes_needed(big, "bwd"), 3 * need)
        fits, why = pc.math_fits(big, "fwd", 79 << 30)
        self.assertFalse(fits)
        self.assertIn(f"({need} bytes", why)
        self.assertIn(f"({79 << 30} bytes)", why)

    def test_tolerances(self):
        self.assertEqual(pc.tolerance("bf16", "fwd"), (2 ** -6, 2 ** -6))
        self.assertEqual(pc.tolerance("fp16", "fwd"), (2 ** -8, 2 ** -8))
        self.assertEqual(pc.tolerance("bf16", "bwd"), (2 ** -4, 2 ** -4))

    def test_parse_peers(self):
        self.assertEqual(pc.parse_peers("triton_fa, sdpa_flash,triton_fa"),
                         ["triton_fa", "sdpa_flash"])
        with self.assertRaises(pc.UsageError):
            pc.parse_peers("sdpa_flash,flash3")
        with self.assertRaises(pc.UsageError):
            pc.parse_peers(" , ")


class ServeTest(unittest.TestCase):
    """pc.serve, the protocol of torch_peers.py --serve that fa4-analyze bench --ab drives,
    with a fake peer: one reply per request, prepare before round, errors named and the loop
    going on, quit or the end of input ending it."""

    def run_serve(self, requests, prepare_status="ok", round_error=None):
        lines = [json.dumps(r) if not isinstance(r, str) else r for r in requests]
        replies, prepared, rounds = [], [], []
        feed = iter(line + "\n" for line in lines)

        def prepare(shape, seed):
            prepared.append((shape, seed))
            return prepare_status, None if prepare_status == "ok" else "no kernel", {"rows": 1}

        def time_round():
            rounds.append(len(rounds))
            if round_error:
                raise pc.RoundError(round_error)
            return [1e-3, 1.1e-3]

        code = pc.serve(lambda: next(feed, ""), replies.append, prepare, time_round)
        return code, [json.loads(r) for r in replies], prepared, rounds

    SHAPE = {"batch": 2, "heads": 16, "heads_kv": 16, "seqlen_q": 1024, "seqlen_k": 1024,
             "headdim": 128, "headdim_v": 128, "causal": True, "dtype": "bf16"}

    def test_prepare_then_rounds(self):
        code, replies, prepared, rounds = self.run_serve(
            [{"op": "prepare", "shape": self.SHAPE, "seed": 7}, {"op": "round"}, {"op": "round"},
             {"op": "quit"}, {"op": "round"}])
        self.assertEqual(code, 0)
        self.assertEqual(replies, [{"status": "ok", "reason": None, "check": {"rows": 1}},
                                   {"samples_s": [1e-3, 1.1e-3]}, {"samples_s": [1e-3, 1.1e-3]}])
        self.assertEqual(prepared, [(pc.Shape(2, 16, 16, 1024, 1024, 128, 128, True, "bf16"), 7)])
        self.assertEqual(rounds, [0, 1])

    def test_a_round_needs_an_ok_prepare(self):
        _, replies, _, rounds = self.run_serve(
            [{"op": "round"}, {"op": "prepare", "shape": self.SHAPE, "seed": 1},
             {"op": "round"}], prepare_status="skipped")
        self.assertIn("no peer is prepared", replies[0]["error"])
        self.assertEqual(replies[1]["status"], "skipped")
        self.assertIn("error", replies[2])
        self.assertEqual(rounds, [])

    def test_bad_requests_are_answered_and_the_loop_goes_on(self):
        code, replies, prepared, _ = self.run_serve(
            ["{not json", {"op": "fly"}, {"op": "prepare", "shape": {"batch": 1}, "seed": 1},
             {"op": "prepare", "shape": self.SHAPE, "seed": -1}, ""])
        self.assertEqual(code, 0)
        self.assertIn("not a JSON request", replies[0]["error"])
        self.assertIn("unknown op 'fly'", replies[1]["error"])
        self.assertIn("prepare/shape", replies[2]["error"])
        self.assertIn("prepare/seed", replies[3]["error"])
        self.assertEqual(prepared, [])

    def test_a_round_error_is_a_reply(self):
        _, replies, _, _ = self.run_serve(
            [{"op": "prepare", "shape": self.SHAPE, "seed": 1}, {"op": "round"}],
            round_error="timing raised RuntimeError: boom")
        self.assertEqual(replies[1], {"error": "timing raised RuntimeError: boom"})

    def test_list_peers_and_serve_arguments(self):
        code, out, _ = run_cli("--list-peers")
        self.assertEqual(code, 0)
        self.assertEqual(out.splitlines(), [f"{n} {pc.PEER_SOURCE[n]}" for n in pc.PEER_NAMES])
        code, _, err = run_cli("--serve", "--peers", "sdpa_cudnn,sdpa_flash", "--pass", "fwd")
        self.assertEqual(code, 2)
        self.assertIn("--serve times one peer", err)
        code, _, err = run_cli("--serve", "--peers", "sdpa_cudnn")
        self.assertEqual(code, 2)
        self.assertIn("--serve times one pass", err)


if __name__ == "__main__":
    unittest.main(verbosity=1)
