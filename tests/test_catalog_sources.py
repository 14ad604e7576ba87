"""Every protocol quirk a spec switches on cites where it is documented or observed."""

from kopa_bench.catalog import get_catalog


def test_quirk_flags_cite_their_source():
    missing = []
    for ref in get_catalog():
        svc, op = ref.service, ref.op
        for p in op.params:
            if p.enum_case_insensitive and not p.source:
                missing.append(f"{op.tool}.{p.name}: enum_case_insensitive without `source`")
        if svc.accept_header_json and not svc.sources.get("accept_header_json"):
            missing.append(f"{svc.id}: accept_header_json without sources.accept_header_json")
    assert not missing, missing


def test_lazy_tables_name_registered_generators():
    from kopa_bench.world.answers import LAZY_TABLES

    named = {t for ref in get_catalog() for t in ref.op.lazy_tables}
    assert named and named <= set(LAZY_TABLES), named - set(LAZY_TABLES)
    for ref in get_catalog():
        for table in ref.op.lazy_tables:
            assert table in ref.op.query, (ref.op.tool, table)
