"""Performance scripts: each prints measured figures and ratios (`kopa perf`; BENCHMARKS.md)."""
