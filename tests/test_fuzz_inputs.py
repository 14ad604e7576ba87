"""Bad input, generated: the sandbox never answers 500 and the client never raises.

Injection strings, huge / negative paging, invalid dates, latin-1 / cp949 bytes in query
strings, unknown parameters, oversized bodies and random paths under every platform prefix.
Over 10,000 generated cases in all (bounded by `max_examples`; no deadline).
"""

from __future__ import annotations

import asyncio
from urllib.parse import quote, quote_from_bytes

import httpx
import pytest
from hypothesis import assume, HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_bench.catalog import get_catalog
from kopa_bench.client import KopaClient
from kopa_bench.client.result import ToolResult
from kopa_bench.client.arguments import argument_problem
from kopa_bench.protocols.base import ParamProblem, validate_params

CATALOG = get_catalog()
REFS = sorted(CATALOG, key=lambda r: r.op.tool)
TOOLS = [r.op.tool for r in REFS]
PREFIXES = sorted({p.sandbox_prefix for p in CATALOG.platforms.values()})
OP_PATHS = sorted({(f"{r.platform.sandbox_prefix}{r.service.path}{r.op.path}", tuple(p.name for p in r.op.params))
                   for r in REFS if "{" not in f"{r.service.path}{r.op.path}"})
ERROR_TYPES = {"argument", "unknown_tool", "parse", "auth", "quota", "no_service", "transient", "platform"}

NASTY = ["'", "\"", "' OR '1'='1", "'; DROP TABLE air_stations; --", "1; SELECT * FROM information_schema.tables",
         "%00", "\x00", "\\", "%", "_", "*", "+", "&", "=", "?", "#", "/../../etc/passwd", "<script>alert(1)</script>",
         "]]><x>", "${jndi:ldap://x}", "{{7*7}}", "NaN", "inf", "-inf", "1e309", "0x10", "٣", "１２", "\u202e", "🙂",
         "가" * 5000, "A" * 100_000, "서울특별시 ' OR 1=1", "20230231", "20231301", "2023-02-30", "99999999", "00000000",
         "-1", "-99999999999999999999", "18446744073709551616", "0", " ", "\t\n", "null", "None", "true", "[]", "{}"]
SCALARS = st.one_of(
    st.sampled_from(NASTY),
    st.text(max_size=60),
    st.integers(min_value=-(10 ** 20), max_value=10 ** 20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.text(max_size=5), SCALARS, max_size=2))
PAGING = ("numOfRows", "pageNo", "START_INDEX", "END_INDEX", "START", "END", "display", "page", "countPerPage",
          "currentPage", "pIndex", "pSize", "perPage", "size")


@st.composite
def tool_args(draw, values=VALUES):
    ref = draw(st.sampled_from(REFS))
    names = [p.name for p in ref.op.params] + list(PAGING) + ["bogus", "serviceKey", "'; DROP TABLE x"]
    keys = draw(st.lists(st.sampled_from(names), max_size=6, unique=True))
    args = {k: draw(values) for k in keys}
    # often keep the declared params valid-looking so the endpoint gets past validation
    if draw(st.booleans()):
        for p in ref.op.model_params:
            if p.name not in args and p.example is not None:
                args[p.name] = p.example
    return ref, args


FAST = settings(max_examples=3500, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def reference_argument_problem(op, args):
    """The client's argument check as first written by hand (the catalog's coerce and check,
    parameter by parameter): the jsonschema check must say exactly what it said."""
    known = {p.name: p for p in op.model_params}
    unknown = sorted(set(args) - set(known))
    if unknown:
        return (f"unknown parameter(s) {unknown} for {op.tool}; valid parameters: {sorted(known)}")
    for p in op.model_params:
        value = args.get(p.name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if p.required and p.default is None:
                return f"missing required parameter {p.name!r} for {op.tool} ({p.desc_en}; e.g. {p.example!r})"
            continue
        try:
            coerced = p.coerce(value)
        except ValueError as exc:
            return f"{exc} (tool {op.tool})"
        problem = p.check(coerced)
        if problem:
            return f"{problem} (tool {op.tool}; e.g. {p.example!r})"
    return None


@FAST
@given(tool_args())
def test_argument_check_says_what_the_hand_written_check_said(case) -> None:
    ref, args = case
    problem = argument_problem(ref, args)
    assert problem is None or (isinstance(problem, str) and problem)
    assert problem == reference_argument_problem(ref.op, args)


@FAST
@given(tool_args(values=st.one_of(st.sampled_from(NASTY), st.text(max_size=40), st.integers().map(str))))
def test_validate_params_never_raises(case) -> None:
    ref, args = case
    params, problem = validate_params(ref.op, args)
    assert isinstance(params, dict)
    assert problem is None or (isinstance(problem, ParamProblem) and problem.kind in ("missing", "invalid"))


# ---- through the client (in-process sandbox) -------------------------------------------------------
@pytest.fixture(scope="module")
def loop():
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


@pytest.fixture(scope="module")
def fuzz_client(world, catalog, sandbox_app, loop):
    c = KopaClient(world=world, catalog=catalog, app=sandbox_app, max_retries=0)
    yield c
    loop.run_until_complete(c.aclose())


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(case=st.one_of(tool_args(), st.tuples(st.text(max_size=30), VALUES)))
def test_client_never_raises(case, fuzz_client, loop) -> None:
    tool, args = (case[0].op.tool, case[1]) if not isinstance(case[0], str) else case
    r = loop.run_until_complete(fuzz_client.call(tool, args))
    assert isinstance(r, ToolResult)
    assert not r.result_code.startswith("HTTP5"), (tool, args, r.result_code, r.raw and r.raw[:300])
    if not r.ok:
        assert r.error is not None and r.error.type in ERROR_TYPES and r.error.message
        assert r.error.type != "transient", (tool, args, r.error)  # no faults here: nothing is transient
        if r.error.type not in ("argument", "unknown_tool"):
            assert r.result_code, (tool, args, r.error)  # the platform's own code


# ---- raw HTTP at the sandbox -----------------------------------------------------------------------
ENCODINGS = ("utf-8", "latin-1", "cp949", "euc-kr", "utf-16")


@st.composite
def raw_request(draw):
    op_params: tuple = ()
    if draw(st.booleans()):
        path, op_params = draw(st.sampled_from(OP_PATHS))
    else:
        tail = draw(st.lists(st.one_of(st.sampled_from(["json", "xml", "1", "5", "KOPA-SANDBOX", "..", "%2F", "%00", "가"]),
                                       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)),
                             max_size=6))
        path = draw(st.sampled_from(PREFIXES)) + "/" + "/".join(quote(t, safe="") for t in tail)
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        name = draw(st.one_of(st.sampled_from(["serviceKey", "ServiceKey", "KEY", "OC", "confmKey", "apiKey", "key",
                                               "returnType", "_type", "type", "dataType", "resultType", *PAGING,
                                               *op_params]),
                              st.text(max_size=8)))
        value = draw(st.one_of(st.sampled_from(NASTY[:-20] + ["KOPA-SANDBOX", "json", "JSON", "xml"]), st.text(max_size=30)))
        enc = draw(st.sampled_from(ENCODINGS))
        raw = value.encode(enc, errors="replace")
        parts.append(f"{quote(name, safe='')}={quote_from_bytes(raw, safe='')}")
    if draw(st.booleans()):
        parts.append("serviceKey=KOPA-SANDBOX")
    query = "&".join(parts)
    method = draw(st.sampled_from(["GET", "GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS"]))
    body = draw(st.one_of(st.none(), st.binary(max_size=256), st.sampled_from([b"{", b"A" * 2_000_000, "가".encode("cp949") * 1000])))
    return method, path + ("?" + query if query else ""), body


@pytest.fixture(scope="module")
def raw_http(sandbox_app, loop):
    c = httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox_app, raise_app_exceptions=False),
                          base_url="http://sandbox", timeout=30)
    yield c
    loop.run_until_complete(c.aclose())


@settings(max_examples=2500, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(req=raw_request())
def test_sandbox_never_500(req, raw_http, loop) -> None:
    method, url, body = req
    try:
        request = raw_http.build_request(method, url, content=body)
    except httpx.InvalidURL:  # '//host'-like paths: no client can send them, so no server sees them
        assume(False)
    r = loop.run_until_complete(raw_http.send(request))
    assert r.status_code < 500, (method, url[:300], r.status_code, r.text[:300])
    assert r.status_code in (200, 400, 401, 403, 404, 405, 413, 429), (method, url[:300], r.status_code)
