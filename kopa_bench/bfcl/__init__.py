"""BFCL v4 on KOPA backends: BFCL's own data and checkers (the ``bfcl-eval`` package, the
``bfcl`` extra), KOPA's backends, parsers, resumable JSONL runner and reports.

Modules: ``compat`` (the only import of bfcl_eval, and its one stub), ``categories``, ``data``,
``prompting``, ``agents`` (scripted replay / wrong-function / wrong-value), ``runner``,
``checking`` (verdicts from bfcl_eval's checkers), ``scoring`` (BFCL's accuracy, score files,
leaderboard CSVs and KOPA's report section). Layering: this package sits beside the runner and
scoring; only the CLI and the Space import it. Importing it does not import bfcl_eval.
"""
