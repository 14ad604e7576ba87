"""Tests for the vendored reference tables (kopa_bench.refdata)."""

import re
from importlib import resources

import pyarrow as pa
import pytest

from kopa_bench import refdata
from kopa_bench.refdata import TABLE_FILES, TABLE_NAMES, load_table, table_rows


def _sources_rows() -> dict[str, tuple[str, int]]:
    """Parse the `| table | file | rows | ...` rows of refdata/SOURCES.md."""
    text = resources.files("kopa_bench.refdata").joinpath("SOURCES.md").read_text("utf-8")
    out = {}
    for line in text.splitlines():
        m = re.match(r"\|\s*(\w+)\s*\|\s*([\w.]+)\s*\|\s*(\d+)\s*\|", line)
        if m:
            out[m[1]] = (m[2], int(m[3]))
    return out


def test_sources_md_documents_every_table():
    documented = _sources_rows()
    assert set(documented) == set(TABLE_NAMES)
    for name, (file_name, _) in documented.items():
        assert TABLE_FILES[name] == file_name


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_row_counts_match_sources_md(name):
    assert load_table(name).num_rows == _sources_rows()[name][1]


def test_expected_counts_from_brief():
    assert load_table("legal_dong_codes").num_rows == 49_861
    assert load_table("kma_grid").num_rows == 3_834
    assert load_table("airkorea_stations").num_rows == 656


def test_unknown_table_lists_valid_names():
    with pytest.raises(KeyError, match="unknown reference table 'nope'.*legal_dong_codes"):
        load_table("nope")
    with pytest.raises(KeyError):
        table_rows("nope")


def test_loader_is_cached_and_typed():
    assert load_table("holidays") is load_table("holidays")
    t = load_table("kma_grid")
    assert t.schema.field("nx").type == pa.int32()
    assert t.schema.field("lat").type == pa.float64()
    assert t.schema.field("admin_code").type == pa.string()
    assert t["lat"].null_count == 2  # 이어도
    h = load_table("holidays")
    assert h.schema.field("date").type == pa.date32()
    assert set(h["date_kind"].to_pylist()) == {"01", "02"}  # stays a zero-padded string


def test_legal_dong_codes_content():
    rows = table_rows("legal_dong_codes")
    by_code = {r["code"]: r for r in rows}
    assert all(len(c) == 10 and c.isdigit() for c in by_code)
    assert by_code["1100000000"]["name"] == "서울특별시"
    assert by_code["1168010600"]["name"] == "서울특별시 강남구 대치동"
    assert by_code["1168010600"]["status"] == "존재"
    status = [r["status"] for r in rows]
    assert status.count("존재") == 20_555 and status.count("폐지") == 29_306
    sido = {r["code"] for r in rows if r["status"] == "존재" and " " not in r["name"]}
    assert len(sido) == 17
    # quirk: 세종 has no xx00000000 row; its 시도 row is the 시군구-level code 3611000000
    assert "3611000000" in sido and "3600000000" not in by_code


def test_small_tables_content():
    neis = {r["atpt_ofcdc_sc_code"]: r["legal_sido_code"] for r in table_rows("neis_offices")}
    assert neis["B10"] == "11" and neis["K10"] == "51" and neis["P10"] == "52"
    areas = {r["name"]: r["area_code"] for r in table_rows("tourapi_area_codes")}
    assert areas["서울"] == "1" and areas["제주도"] == "39"
    tago = {r["citycode"]: r["cityname"] for r in table_rows("tago_city_codes")}
    assert tago["25"] == "대전광역시/계룡시"
    subway = table_rows("seoul_subway_stations")
    assert not any('"' in r["statn_nm"] for r in subway)  # KOPA cleaning: stray quotes removed
    assert {"1001", "1002", "1077"} <= {r["subway_id"] for r in subway}
    stations = table_rows("airkorea_stations")
    assert all(33 < r["lat"] < 39 and 124 < r["lon"] < 132 for r in stations)


def test_files_ship_inside_package_and_gzip_used_when_large():
    pkg = resources.files("kopa_bench.refdata")
    for file_name in TABLE_FILES.values():
        res = pkg.joinpath(file_name)
        assert res.is_file(), file_name
        size = len(res.read_bytes())
        assert size <= 1_000_000 or file_name.endswith(".gz"), (file_name, size)
    with pytest.raises(FileNotFoundError, match="missing"):
        refdata.read_resource_bytes("nope.csv")


def test_reference_chains_vendored_as_eval_data_only():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    a = (root / "tests/data/reference_chains.jsonl").read_text("utf-8")
    b = (root / "edge_synth/eval/reference_chains.jsonl").read_text("utf-8")
    assert a == b
    rows = [json.loads(line) for line in a.splitlines() if line.strip()]
    assert len(rows) == 100
    assert {"from_operation", "from_field", "to_operation", "to_param", "transform"} <= set(rows[0])
    assert "never an input" in (root / "edge_synth/eval/README.md").read_text("utf-8")
