"""EDGE: Execution-grounded Dynamic Graph for tool-calling data synthesis.

Pipeline (each stage works over whatever the catalog holds):

1. :mod:`edge_synth.candidates` proposes output-field -> input-parameter bindings between tools
   (names, descriptions, value kinds, transforms) over neighbours from :mod:`edge_synth.retriever`.
2. :mod:`edge_synth.verify` executes probes (:mod:`edge_synth.probing`, inputs from
   :mod:`edge_synth.seeds`) against the sandbox, keeps a Beta posterior per binding
   (:mod:`edge_synth.bandit`) and exports the verified graph (:mod:`edge_synth.verified_graph`).
3. :mod:`edge_synth.evaluate_graph` measures recall / precision / executable share.
4. :mod:`edge_synth.walks` + :mod:`edge_synth.shapes` build trajectories in six shapes,
   :mod:`edge_synth.queries` writes Korean requests, :mod:`edge_synth.export` emits SFT and RL rows.

`edge_synth/eval/` is evaluation data only: nothing in the method reads it.
"""

__version__ = "0.1.0"
