"""Keep service keys out of everything written: logs, errors, caches, trajectories."""

from __future__ import annotations

import logging
import re
from urllib.parse import quote, quote_plus

MASK = "***"
_known: set[str] = set()
# Query-string and path forms in which keys travel (serviceKey=..., KEY=..., OC=..., /KEY/json/).
_KEY_PARAM_RE = re.compile(r"(?i)((?:service_?key|key|oc|confmKey|apiKey|crtfc_key)=)[^&\s\"'<]+")


_PCT_RE = re.compile(r"%[0-9A-F]{2}")


def register_secret(secret: str | None) -> None:
    """Remember a secret so every later `redact()` masks it and its URL-encoded forms: as a
    query value (quote_plus, what httpx sends), as a path segment ('/' encoded or not, for keys
    that travel in the path: ECOS, Seoul), each also with lower-case hex escapes."""
    if secret and len(secret) >= 4 and secret != MASK:
        forms = {quote(secret, safe=""), quote(secret), quote_plus(secret), quote_plus(secret, safe="/")}
        forms |= {_PCT_RE.sub(lambda m: m.group(0).lower(), f) for f in forms}
        _known.add(secret)
        _known.update(f for f in forms if f != secret)


def redact(text: str | None, extra: tuple[str, ...] = ()) -> str | None:
    if not text:
        return text
    for s in sorted(_known.union(e for e in extra if e), key=len, reverse=True):
        if s in text:
            text = text.replace(s, MASK)
    # Every name the pattern knows ends in "key=" or is "oc=": without either (any case) it cannot
    # match, and scanning a 20 kB payload with the regex costs far more than this test.
    low = text.lower()
    if "key=" not in low and "oc=" not in low:
        return text
    return _KEY_PARAM_RE.sub(lambda m: m.group(1) + MASK, text)


class RedactingFilter(logging.Filter):
    """Logging filter: formats the record, then masks secrets in the final message."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            msg = record.getMessage()
        except Exception:
            return True
        clean = redact(msg)
        if clean != msg:
            record.msg, record.args = clean, ()
        return True


def install_log_redaction() -> None:
    """Attach the filter to the root handlers and to httpx/httpcore (which log URLs)."""
    flt = RedactingFilter()
    for name in ("", "httpx", "httpcore", "kopa_bench", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(flt)
        for h in logger.handlers:
            if not any(isinstance(f, RedactingFilter) for f in h.filters):
                h.addFilter(flt)
