"""Time limits in tests are hang guards, never measures of speed: work that takes seconds on a
quiet box can take many times longer on a busy one, and the outcome must not change."""

HANG_S = 1800  # a subprocess or a wait that has not finished by then is stuck
