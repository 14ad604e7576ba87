"""열린국회정보 (NEIS envelope family): members, bills, vote tallies and per-member votes."""

import json

import xmltodict

K = {"KEY": "KOPA-SANDBOX"}
A = "/assembly"


def test_envelope_xml_json_and_errors(raw_get):
    doc = xmltodict.parse(raw_get(f"{A}/nwvrqwxyaytdsfvhu", {**K, "pSize": 3}).text)
    assert doc["nwvrqwxyaytdsfvhu"]["head"]["list_total_count"] == "300" and len(doc["nwvrqwxyaytdsfvhu"]["row"]) == 3
    body = raw_get(f"{A}/nwvrqwxyaytdsfvhu", {**K, "Type": "JSON", "pSize": 3}).json()
    assert body["nwvrqwxyaytdsfvhu"][0]["head"][0]["list_total_count"] == 300
    assert raw_get(f"{A}/nwvrqwxyaytdsfvhu", {"KEY": "nope", "Type": "json"}).json()["RESULT"]["CODE"] == "ERROR-290"
    assert raw_get(f"{A}/ncocpgfiaoituanbr", {**K, "Type": "json"}).json()["RESULT"]["CODE"] == "ERROR-300"
    assert raw_get(f"{A}/nojepdqqaweusdfbi", {**K, "Type": "json", "AGE": "22"}).json()["RESULT"]["CODE"] == "ERROR-300"
    assert raw_get(f"{A}/nzmimeepazxkubdpn", {**K, "Type": "json", "AGE": "19"}).json()["RESULT"]["CODE"] == "INFO-200"
    assert raw_get(f"{A}/nzmimeepazxkubdpn", {**K, "Type": "json", "AGE": "22", "pSize": 5000}).json()["RESULT"]["CODE"] == "ERROR-336"
    assert raw_get(f"{A}/OWSSC6001134T516707", {**K, "Type": "json"}).json()["RESULT"]["CODE"] == "ERROR-310"


def test_keyless_is_sample_5_rows(raw_get):
    body = raw_get(f"{A}/nzmimeepazxkubdpn", {"Type": "json", "AGE": "22", "pSize": 100, "pIndex": 4}).json()
    assert len(body["nzmimeepazxkubdpn"][1]["row"]) == 5


def test_members_and_parties(call):
    r = call("assembly_nwvrqwxyaytdsfvhu", pSize=300)
    assert r.ok and r.total_count == 300 and len(r.records) == 300
    gbn = [m["ELECT_GBN_NM"] for m in r.records]
    assert gbn.count("지역구") == 254 and gbn.count("비례대표") == 46
    assert any(m["ORIG_NM"].startswith("서울 마포구") for m in r.records)
    assert len({m["MONA_CD"] for m in r.records}) == 300


def test_paging(raw_get):
    q = {**K, "Type": "json", "AGE": "22", "BILL_NAME": "법"}
    full = raw_get(f"{A}/nzmimeepazxkubdpn", {**q, "pSize": 1000}).json()["nzmimeepazxkubdpn"]
    p3 = raw_get(f"{A}/nzmimeepazxkubdpn", {**q, "pSize": 7, "pIndex": 3}).json()["nzmimeepazxkubdpn"]
    assert [b["BILL_ID"] for b in p3[1]["row"]] == [b["BILL_ID"] for b in full[1]["row"][14:21]]
    assert p3[0]["head"][0]["list_total_count"] == full[0]["head"][0]["list_total_count"]


def test_member_to_bills_to_votes_chain(call):
    members = call("assembly_nwvrqwxyaytdsfvhu", pSize=300).records
    lead = next(m for m in members if m["HG_NM"] == "강유정")  # real lead sponsor of 의안 2200021
    bills = call("assembly_nzmimeepazxkubdpn", AGE="22", PROPOSER=lead["HG_NM"], pSize=1000)
    assert bills.ok and bills.records
    assert all(b["PROPOSER"].startswith(lead["HG_NM"] + "의원 ") for b in bills.records)
    assert {b["RST_MONA_CD"] for b in bills.records} == {lead["MONA_CD"]}
    passed = call("assembly_nzmimeepazxkubdpn", AGE="22", PROC_RESULT="원안가결", pSize=5)
    assert passed.ok and passed.records
    b = passed.records[0]
    tally = call("assembly_ncocpgfiaoituanbr", AGE=b["AGE"], BILL_ID=b["BILL_ID"])
    assert tally.ok and tally.total_count == 1
    t = tally.records[0]
    assert t["YES_TCNT"] + t["NO_TCNT"] + t["BLANK_TCNT"] == t["VOTE_TCNT"] <= t["MEMBER_TCNT"]
    assert t["YES_TCNT"] > t["VOTE_TCNT"] / 2
    votes = call("assembly_nojepdqqaweusdfbi", AGE="22", BILL_ID=b["BILL_ID"], pSize=1000)
    assert votes.ok and votes.total_count == t["MEMBER_TCNT"]
    mods = [v["RESULT_VOTE_MOD"] for v in votes.records]
    assert mods.count("찬성") == t["YES_TCNT"] and mods.count("반대") == t["NO_TCNT"] and mods.count("기권") == t["BLANK_TCNT"]
    one = call("assembly_nojepdqqaweusdfbi", AGE="22", BILL_ID=b["BILL_ID"], HG_NM=members[0]["HG_NM"])
    assert one.ok and one.records
    prof = call("assembly_nwvrqwxyaytdsfvhu", MONA_CD=one.records[0]["MONA_CD"])
    assert prof.ok and prof.records[0]["HG_NM"] == members[0]["HG_NM"]


def test_bill_names_use_real_law_names(call):
    for law in ("도로교통법", "주택임대차보호법", "근로기준법", "소득세법", "개인정보 보호법", "초·중등교육법"):
        r = call("assembly_nzmimeepazxkubdpn", AGE="22", BILL_NAME=law, pSize=1)
        assert r.ok and r.total_count >= 1, law
        assert r.records[0]["BILL_NAME"].startswith(law)


def test_reference_chains(call):
    chains = [json.loads(line) for line in open("tests/data/reference_chains.jsonl", encoding="utf-8")]
    mine = [c for c in chains if c["from_operation"].startswith("assembly.") and c["to_operation"].startswith("assembly.")]
    assert len(mine) >= 6
    tool = {"assembly." + n: "assembly_" + n for n in ("nwvrqwxyaytdsfvhu", "nzmimeepazxkubdpn", "ncocpgfiaoituanbr", "nojepdqqaweusdfbi")}
    for c in mine:
        src = tool[c["from_operation"]]
        if src == "assembly_nwvrqwxyaytdsfvhu":
            m = call(src, pSize=1).records[0]
            if c["to_operation"] == "assembly.nzmimeepazxkubdpn":
                # pick an active member: the first member with bills
                for m in call(src, pSize=300).records:
                    r = call("assembly_nzmimeepazxkubdpn", AGE="22", PROPOSER=m["HG_NM"])
                    if r.records:
                        break
                assert any(b["RST_MONA_CD"] == m["MONA_CD"] for b in r.records) or r.records
            else:
                bill = call("assembly_ncocpgfiaoituanbr", AGE="22", pSize=1).records[0]
                r = call("assembly_nojepdqqaweusdfbi", AGE="22", BILL_ID=bill["BILL_ID"], HG_NM=m["HG_NM"])
        elif src == "assembly_nzmimeepazxkubdpn":
            b = call(src, AGE="22", PROC_RESULT="수정가결", pSize=1).records[0]
            r = call(tool[c["to_operation"]], AGE=b["AGE"], BILL_ID=b["BILL_ID"])
        elif src == "assembly_ncocpgfiaoituanbr":
            b = call(src, AGE="22", pSize=1).records[0]
            r = call("assembly_nojepdqqaweusdfbi", AGE="22", BILL_ID=b["BILL_ID"])
        else:  # nojepdqqaweusdfbi.MONA_CD -> member profile
            b = call("assembly_ncocpgfiaoituanbr", AGE="22", pSize=1).records[0]
            v = call(src, AGE="22", BILL_ID=b["BILL_ID"], pSize=1).records[0]
            r = call("assembly_nwvrqwxyaytdsfvhu", MONA_CD=v["MONA_CD"])
        assert r.ok and r.records, c
