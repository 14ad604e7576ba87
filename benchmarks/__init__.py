"""Benchmark scripts: each prints measured numbers and ratios (never asserts)."""
