"""Optional speed-ups that sit above client, sandbox and world and plug into KopaClient's transport.

Only what measured worth keeping lives here (BENCHMARKS.md, "Issue 20: what each speed-up piece
buys"): world worker processes that answer in-process sandbox requests ahead of time.
"""

from .world_workers import WorldWorkers, WorldWorkerTransport, use_world_workers

__all__ = ["WorldWorkerTransport", "WorldWorkers", "use_world_workers"]
