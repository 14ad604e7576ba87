"""EDGE probes that say nothing about a binding: an empty answer of B that a control call without
the tested optional parameter shows the context caused, and another input of A drawn after such an
outcome. FakeClient and catalog only (no world)."""

from __future__ import annotations

import asyncio
import random

import pytest

from kopa_bench.catalog import get_catalog
from kopa_bench.client.result import ToolResult
from kopa_bench.testing.fake_client import FakeClient

from tests.test_edge import _Sub

CLS, HIS = "neis_classInfo", "neis_hisTimetable"
ELEM = {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": "7010001"}  # a primary school: no high-school timetable
HIGH = {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": "7011961"}


def _client():
    c = FakeClient(default="nodata")
    c.add(CLS, {"SD_SCHUL_CODE": ELEM["SD_SCHUL_CODE"]}, [{"GRADE": "5", "CLASS_NM": "1"}, {"GRADE": "6", "CLASS_NM": "2"}])
    c.add(CLS, {"SD_SCHUL_CODE": HIGH["SD_SCHUL_CODE"]}, [{"GRADE": "2", "CLASS_NM": "3"}])
    c.add(HIS, {"SD_SCHUL_CODE": HIGH["SD_SCHUL_CODE"]}, [{"GRADE": "2", "CLASS_NM": "3", "PERIO": "1"}])
    c.add(HIS, {"SD_SCHUL_CODE": HIGH["SD_SCHUL_CODE"], "GRADE": "7"}, [])  # no such grade: empty
    return c


def _setup():
    from edge_synth.bindings import Binding
    from edge_synth.env import ProbeExecutor
    from edge_synth.seeds import SeedSampler

    cat = _Sub(get_catalog(), [CLS, HIS])
    grade = Binding(from_field="GRADE", to_param="GRADE", transform="identity", from_kind="id", to_kind="id", prior=0.6, transform_args={}, record_ref=False)
    client = _client()
    return ProbeExecutor(client, memo=False), SeedSampler(cat, seed=0), grade, client


def _upstream(client, args):
    return args, client.lookup(CLS, args)


def _probe(ex, sampler, binding, upstream=None, **opts):
    from edge_synth.probing import ProbeOptions, probe_link

    return asyncio.run(probe_link(ex, sampler, CLS, HIS, [binding], random.Random(0), ProbeOptions(**opts), upstream))


def test_empty_context_is_uninformative():
    ex, sampler, grade, client = _setup()
    pr = _probe(ex, sampler, grade, _upstream(client, ELEM))
    # the school's key passed through from A's call: B is empty without GRADE too
    assert pr.outcome == "empty_uninformative" and pr.controls == 1
    assert pr.b_args["SD_SCHUL_CODE"] == ELEM["SD_SCHUL_CODE"] and (HIS, ELEM) in [(t, {k: a[k] for k in ELEM}) for t, a in client.calls]
    assert _probe(ex, sampler, grade, _upstream(client, ELEM), control=False).outcome == "empty"


def test_empty_for_the_bound_value_stays_a_failure():
    ex, sampler, grade, client = _setup()
    up = (HIGH, ToolResult(tool=CLS, arguments=HIGH, ok=True, result_code="00", records=[{"GRADE": "7", "CLASS_NM": "1"}]))
    pr = _probe(ex, sampler, grade, up)
    assert pr.outcome == "empty" and pr.controls == 1  # B answers the school without GRADE=7
    assert _probe(ex, sampler, grade, _upstream(client, HIGH)).outcome == "success"


def test_required_parameter_gets_no_control():
    from edge_synth.bindings import Binding

    ex, sampler, _, client = _setup()
    code = Binding(from_field="SD_SCHUL_CODE", to_param="SD_SCHUL_CODE", transform="identity", from_kind="id",
                   to_kind="id", prior=0.6, transform_args={}, record_ref=False)
    up = (ELEM, ToolResult(tool=CLS, arguments=ELEM, ok=True, result_code="00", records=[dict(ELEM, GRADE="5")]))
    pr = _probe(ex, sampler, code, up)
    assert pr.outcome == "empty" and pr.controls == 0


@pytest.mark.parametrize("redraws,outcome", [(0, "empty_uninformative"), (2, "success")])
def test_uninformative_outcome_draws_another_input_of_a(redraws, outcome):
    ex, sampler, grade, _ = _setup()
    inputs = iter([dict(ELEM), dict(HIGH), dict(HIGH)])
    sampler.seed_args = lambda tool, split, rng: next(inputs)  # A's seed inputs, in this order
    pr = _probe(ex, sampler, grade, seed_redraws=redraws)
    assert pr.outcome == outcome and pr.redraws == min(redraws, 1)
    if outcome == "success":
        assert pr.a_args == HIGH
