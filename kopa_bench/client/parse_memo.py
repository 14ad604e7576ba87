"""Parsed answers, memoised by the bytes they were parsed from.

A protocol's `parse_response(ref, status, headers, body)` is a pure function of the operation,
the status and the body (no parser reads the headers), and a benchmark run reads the same
answer several times: the gold program, the agent and the scorer ask the same questions, and
the sandbox replays the same bytes. Parsing XML with xmltodict costs about as much as
rendering it, so the result is kept (LRU, bounded in bytes) and handed out as a fresh copy:
callers may mutate what they get.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import replace

from ..protocols.base import Parsed

MAX_BYTES = 32 * 2 ** 20
MAX_ENTRIES = 4096
MAX_BODY = 2 * 2 ** 20  # larger answers are parsed every time

_memo: OrderedDict[tuple, tuple] = OrderedDict()  # key -> (ref, Parsed); ref pins its id
_bytes = 0
_lock = threading.Lock()


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _fresh(p: Parsed) -> Parsed:
    records = [(dict(r) if set(map(type, r.values())) <= _SCALARS  # a flat record: a C-level copy
                else {k: (copy.deepcopy(v) if isinstance(v, (dict, list)) else v) for k, v in r.items()})
               if type(r) is dict else copy.deepcopy(r) for r in p.records]
    return replace(p, records=records)


def parse(proto, ref, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    global _bytes
    if len(body) > MAX_BODY:
        return proto.parse_response(ref, status, headers, body)
    key = (proto.__name__, ref.op.tool, id(ref), status, body)
    with _lock:
        hit = _memo.get(key)
        if hit is not None:
            _memo.move_to_end(key)
    if hit is not None and hit[0] is ref:
        return _fresh(hit[1])
    parsed = proto.parse_response(ref, status, headers, body)
    keep = _fresh(parsed)
    with _lock:
        if key not in _memo:
            _memo[key] = (ref, keep)
            _bytes += len(body)
            while _memo and (_bytes > MAX_BYTES or len(_memo) > MAX_ENTRIES):
                old_key, _ = _memo.popitem(last=False)
                _bytes -= len(old_key[-1])
    return parsed


def clear() -> None:
    global _bytes
    with _lock:
        _memo.clear()
        _bytes = 0
