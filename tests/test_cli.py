"""The `kopa` console script: tools list/show, call, sandbox urls, world info."""

import json

from typer.testing import CliRunner

from kopa_bench.cli import app

runner = CliRunner()


def test_tools_list_json_and_show(catalog):
    out = runner.invoke(app, ["tools", "list", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert {r["name"] for r in rows} == set(catalog.tool_names)
    assert {"name", "platform", "domain", "description"} <= set(rows[0])
    show = runner.invoke(app, ["tools", "show", "airkorea_getNearbyMsrstnList"])
    info = json.loads(show.output)
    assert info["schema"]["function"]["parameters"]["required"] == ["tmX", "tmY"]
    assert info["live_url"].startswith("https://apis.data.go.kr/B552584/")
    bad = runner.invoke(app, ["tools", "show", "airkorea_getNearbyMsrstn"])
    assert bad.exit_code == 2 and "did you mean" in bad.output


def test_call_prints_the_normalised_result(world):
    out = runner.invoke(app, ["call", "airkorea_getTMStdrCrdnt", "umdName=혜화동"])
    assert out.exit_code == 0, out.output
    res = json.loads(out.output)
    assert res["ok"] and res["records"][0]["umdName"] == "혜화동" and "raw" not in res
    bad = runner.invoke(app, ["call", "airkorea_getTMStdrCrdnt"])
    assert bad.exit_code == 1 and "umdName" in bad.output
    garbage = runner.invoke(app, ["call", "airkorea_getTMStdrCrdnt", "umdName"])
    assert garbage.exit_code != 0 and "key=value" in garbage.output


def test_sandbox_urls_cover_every_platform(catalog):
    out = runner.invoke(app, ["sandbox", "urls", "--json", "--base", "http://127.0.0.1:9"])
    mapping = json.loads(out.output)
    assert set(mapping) == {p.live_base_url for p in catalog.platforms.values()}
    assert mapping["https://apis.data.go.kr"] == "http://127.0.0.1:9"
