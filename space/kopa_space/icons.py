"""The Space's status marks: symbols that common text fonts (DejaVu Sans, Segoe UI Symbol,
Apple Symbols) carry, never emoji, so they read the same on a machine without an emoji font.
None has emoji presentation by default, and none is followed by the emoji variation selector."""

OK = "✓"
FAIL = "✗"
WARN = "⚠"
TOOL = "⚙"
THINK = "…"
