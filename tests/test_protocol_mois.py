"""MOIS StanReginCd: its own [head, row] envelope on data.go.kr, INFO/ERROR codes, chains.

data_go_kr.py dispatches services with `extra.protocol` to their own module (stanregincd.py).
"""

import asyncio

import httpx
import pytest
import xmltodict

PATH = "/1741000/StanReginCd/getStanReginCdList"
KEY = {"ServiceKey": "KOPA-SANDBOX"}


@pytest.fixture(scope="module")
def mois_app(world, catalog):
    from kopa_bench.sandbox import create_app

    return create_app(world=world, catalog=catalog)


@pytest.fixture()
def mcall(mois_app, world, catalog):
    from kopa_bench.client import KopaClient

    client = KopaClient(catalog=catalog, world=world, app=mois_app)
    return lambda tool, **args: client.call_sync(tool, args)


@pytest.fixture()
def mget(mois_app):
    def _get(params):
        async def go():
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=mois_app), base_url="http://sandbox") as c:
                return await c.get(PATH, params=params)

        return asyncio.run(go())

    return _get


def test_xml_default_envelope_and_nomal_service(mget):
    r = mget({**KEY, "locatadd_nm": "서울특별시 강남구", "flag": "Y", "pageNo": 1, "numOfRows": 5})
    assert r.status_code == 200 and r.headers["content-type"] == "application/xml;charset=UTF-8"
    doc = xmltodict.parse(r.text)["StanReginCd"]
    assert doc["head"]["RESULT"] == {"resultCode": "INFO-0", "resultMsg": "NOMAL SERVICE"}
    assert int(doc["head"]["totalCount"]) > 10 and len(doc["row"]) == 5
    assert doc["row"][0]["region_cd"] == "1168000000" and doc["row"][0]["umd_cd"] == "000"


def test_json_switch_shape(mget):
    for t in ("json", "JSON"):
        doc = mget({**KEY, "type": t, "locatadd_nm": "서울특별시 강남구 역삼동"}).json()
        head, row = doc["StanReginCd"][0]["head"], doc["StanReginCd"][1]["row"]
        assert isinstance(head[0]["totalCount"], int) and head[0]["totalCount"] >= 1
        assert head[2]["RESULT"]["resultCode"] == "INFO-0"
        assert row[0]["locallow_nm"] == "역삼동" and row[0]["region_cd"].startswith("11680")


def test_errors_and_no_data(mget):
    r = mget({"type": "json", "locatadd_nm": "서울"})
    assert xmltodict.parse(r.text)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"
    r = mget({"serviceKey": "KOPA-SANDBOX", "type": "json", "locatadd_nm": "서울", "numOfRows": 1001})
    assert r.json()["RESULT"]["resultCode"] == "ERROR-336"
    r = mget({**KEY, "type": "json", "pageNo": "first"})
    assert r.json()["RESULT"]["resultCode"] == "ERROR-333"
    r = mget({**KEY, "type": "json", "locatadd_nm": "없는도 없는시"})
    assert r.json()["RESULT"] == {"resultCode": "INFO-200", "resultMsg": "해당하는 데이터가 없습니다."}
    r = mget({**KEY, "locatadd_nm": "없는도 없는시"})
    assert xmltodict.parse(r.text)["RESULT"]["resultCode"] == "INFO-200"


def test_paging_consistent(mcall):
    full = mcall("mois_getStanReginCdList", locatadd_nm="서울특별시 종로구", numOfRows=1000)
    assert full.ok and full.total_count == len(full.records) > 50
    p3 = mcall("mois_getStanReginCdList", locatadd_nm="서울특별시 종로구", numOfRows=10, pageNo=3)
    assert [r["region_cd"] for r in p3.records] == [r["region_cd"] for r in full.records[20:30]]
    none = mcall("mois_getStanReginCdList", locatadd_nm="없는도")
    assert none.ok and none.total_count == 0 and none.records == []
    too_many = mcall("mois_getStanReginCdList", locatadd_nm="서울", numOfRows=5000)
    assert not too_many.ok and too_many.error.type == "argument"


def test_chains_to_molit_airkorea_hira(mcall):
    from kopa_bench.transforms import apply_transform

    rows = mcall("mois_getStanReginCdList", locatadd_nm="서울특별시 강남구", numOfRows=100).records
    district = next(r for r in rows if r["umd_cd"] == "000")
    lawd = district["region_cd"][:5]
    for tool in ("molit_getRTMSDataSvcAptTrade", "molit_getRTMSDataSvcAptRent"):
        res = mcall(tool, LAWD_CD=lawd, DEAL_YMD="202610", numOfRows=10)
        assert res.ok and res.records, tool
    dong = next(r for r in rows if r["umd_cd"] != "000")
    tm = mcall("airkorea_getTMStdrCrdnt", umdName=dong["locallow_nm"])
    assert tm.ok and tm.records
    ph = mcall("hira_getParmacyBasisList", emdongNm=dong["locallow_nm"])
    assert ph.ok
    for addr, short in (("경상남도 창원시", "경남"), ("강원특별자치도 강릉시", "강원"), ("서울특별시 강남구", "서울")):
        row = mcall("mois_getStanReginCdList", locatadd_nm=addr, numOfRows=1).records[0]
        sido = apply_transform("sido_short", row["locatadd_nm"].split()[0])
        assert sido == short
        air = mcall("airkorea_getCtprvnRltmMesureDnsty", sidoName=sido, numOfRows=5)
        assert air.ok and air.records


def test_tourapi_addr_to_mois(mcall):
    det = mcall("tourapi_detailCommon2", contentId=mcall("tourapi_searchKeyword2", keyword="경복궁").records[0]["contentid"]).records[0]
    first = " ".join(det["addr1"].split()[:2])
    res = mcall("mois_getStanReginCdList", locatadd_nm=first)
    assert res.ok and res.records and res.records[0]["region_cd"].startswith("11110")
