"""Issue 22: rewrite tasks whose query names an entity the real-entity world no longer has.

Each rewrite replaces names in the whole task (query, gloss, program args, answer descriptions)
and bumps the task's patch version; run once, then `kopa bench check-data`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "kopa_bench" / "tasks" / "data"

# task id -> [(old, new)], applied in order to the task's JSON text
REWRITES: dict[str, list[tuple[str, str]]] = {
    "kopa-test-education-004": [("우면중", "서초중"), ("Umyeon", "Seocho")],
    "kopa-test-education-006": [("공덕중", "동도중"), ("Gongdeok", "Dongdo")],
    "kopa-test-education-007": [("서울고등학교", "경복고등학교"), ("한솔고등학교", "중앙고등학교"), ("연지고등학교", "동성고등학교"),
                                ("동숭고등학교", "경신고등학교"), ("신흥고등학교", "대신고등학교"), ("필운고등학교", "배화여자고등학교"),
                                ("금성고등학교", "덕성여자고등학교"),
                                ("서울고, 한솔고, 연지고, 동숭고, 신흥고, 필운고, 금성고", "경복고, 중앙고, 동성고, 경신고, 대신고, 배화여고, 덕성여고"),
                                ("서울고 ", "경복고 "), ("한솔고 ", "중앙고 "), ("연지고 ", "동성고 "), ("동숭고 ", "경신고 "),
                                ("신흥고 ", "대신고 "), ("필운고 ", "배화여고 "), ("금성고 ", "덕성여고 ")],
    "kopa-test-education-017": [("우면중", "서초중"), ("공덕중", "신수중"), ("Umyeon", "Seocho"), ("Gongdeok", "Sinsu")],
    "kopa-dev-education-003": [("금남로중", "무등중"), ("계산여자중학교", "대전여자중학교"), ("계산여중", "대전여중")],
    # National Assembly: real constituencies and members; laws whose amendment was rejected in the
    # generated bills of the real-member world
    "kopa-test-law-003": [("서울 강남구병", "서울 광진구갑"), ("Gangnam-gu C", "Gwangjin-gu A")],
    "kopa-test-law-019": [("최저임금법", "의료법"), ("Minimum Wage Act", "Medical Service Act")],
    "kopa-test-politics-002": [("서울 중구을", "서울 중구성동구을"), ("Seoul Jung-eul", "Seoul Jung-Seongdong-eul")],
    "kopa-test-politics-003": [("대전 동구을 전경선", "대전 동구 장철민"), ("대전 동구을", "대전 동구"), ("전경선", "장철민"),
                               ("Rep. Jeon Gyeong-seon (Daejeon Dong-gu-eul; a namesake exists)", "Rep. Jang Cheol-min (Daejeon Dong-gu)")],
    "kopa-test-politics-005": [("서울 종로구병", "서울 용산구"), ("Seoul Jongno-byeong", "Seoul Yongsan-gu")],
    "kopa-test-politics-008": [("용산구 갑·을·병이랑 성동구 갑·을·병 의원 여섯 명", "서울 용산구, 중구성동구 갑·을, 광진구 갑·을, 동작구갑 의원 여섯 명"),
                               ("서울 용산구갑", "서울 용산구"), ("서울 용산구을", "서울 중구성동구갑"), ("서울 용산구병", "서울 중구성동구을"),
                               ("서울 성동구갑", "서울 광진구갑"), ("서울 성동구을", "서울 광진구을"), ("서울 성동구병", "서울 동작구갑"),
                               ("용산구갑 의원 표결", "용산구 의원 표결"), ("성동구병 의원 표결", "동작구갑 의원 표결"),
                               ("the six members for Yongsan-gu and Seongdong-gu (gap/eul/byeong)",
                                "the six members for Yongsan-gu, Jung-Seongdong-gu A/B, Gwangjin-gu A/B and Dongjak-gu A")],
    "kopa-test-politics-011": [("서울 중구을", "서울 마포구갑"), ("Seoul Jung-eul", "Seoul Mapo-gap")],
    "kopa-test-politics-012": [("광주 북구을", "경남 창원시마산합포구"), ("Gwangju Buk-eul", "Changwon Masanhappo")],
    "kopa-test-politics-013": [("마포구 갑·을·병 세 의원", "서울 마포구 갑·을이랑 서대문구갑 세 의원"), ("서울 마포구병", "서울 서대문구갑"),
                               ("Of the three Mapo-gu members (gap/eul/byeong)", "Of the Mapo-gu A/B and Seodaemun-gu A members")],
    "kopa-test-politics-015": [("최저임금법", "양곡관리법"), ("Minimum Wage Act", "Grain Management Act")],
    "kopa-test-politics-016": [("부산 연제구", "부산 수영구"), ("부산 영도구", "부산 중구영도구"),
                               ("Busan Yeonje and Busan Yeongdo", "Busan Suyeong and Busan Jung-Yeongdo")],
    "kopa-test-politics-017": [("서울 성동구을이랑", "서울 중구성동구을이랑"), ("서울 성동구을", "서울 중구성동구을"),
                               ("Seoul Seongdong-eul", "Seoul Jung-Seongdong-eul")],
    "kopa-test-politics-018": [("전기사업법", "물환경보전법"), ("Electricity Business Act", "Water Environment Conservation Act")],
    "kopa-test-politics-019": [("지방세법", "부가가치세법"), ("Local Tax Act", "Value-Added Tax Act")],
    "kopa-test-politics-020": [("서울 성동구을", "서울 중구성동구을"), ("Seoul Seongdong-eul", "Seoul Jung-Seongdong-eul")],
    "kopa-test-politics-023": [("전기사업법", "형사소송법"), ("서울 서대문구병", "서울 서대문구을"),
                               ("Electricity Business Act", "Criminal Procedure Act"), ("Seodaemun-byeong", "Seodaemun-eul")],
    "kopa-dev-politics-004": [("마포구 갑·을·병 의원들", "서울 마포구 갑·을이랑 서대문구갑 의원들"), ("서울 마포구병", "서울 서대문구갑"),
                              ("the three Mapo-gu members", "the Mapo-gu A/B and Seodaemun-gu A members")],
    # bus stops sit on the real-point legal-dong map now; 청주's terminal has no low-floor bus due at the clock
    "kopa-test-traffic-007": [("청주", "충주"), ("Cheongju", "Chungju")],
    # law.go.kr carries official article texts now: a 시행령 has no 벌칙 article, so the question asks for an act
    "kopa-test-law-007": [("이름에 '근로'가 들어가는 현행 법령 중에", "이름에 '근로'가 들어가는 현행 법률 중에"),
                          ("Among current laws whose name", "Among current acts (법률) whose name")],
    "kopa-dev-politics-005": [("부산 연제구", "경기 안양시동안구을"), ("Busan Yeonje", "Anyang Dongan-eul")],
}


def drop_step(step: str):
    """A rewrite that removes one step and every reference to it from answer lists (the real-member
    world has one bill fewer than the generated one had)."""
    def edit(task: dict) -> dict:
        task["program"] = [p for p in task["program"] if p["id"] != step]
        text = json.dumps(task, ensure_ascii=False)
        text = re.sub(rf', "\${step}\.[^"]*"', "", text)
        return json.loads(text)
    return edit


def acts_only(step: str):
    """A rewrite that makes one lawSearch step pick among 법률 only."""
    def edit(task: dict) -> dict:
        for p in task["program"]:
            if p["id"] == step:
                p["pick"] = {"where": {"법령구분명": "법률"}, **p["pick"]}
        return task
    return edit


EDITS = {"kopa-test-politics-012": drop_step("t8"), "kopa-test-law-007": acts_only("s1")}


def bump(version: str) -> str:
    major, minor, patch = version.split(".")
    return f"{major}.{minor}.{int(patch) + 1}"


def main(ids: list[str]) -> None:
    for path in sorted(DATA.glob("*/*.json")):
        tasks = json.loads(path.read_text("utf-8"))
        changed = False
        for i, t in enumerate(tasks):
            if (t["id"] not in REWRITES and t["id"] not in EDITS) or (ids and t["id"] not in ids):
                continue
            text = json.dumps(t, ensure_ascii=False)
            for old, new in REWRITES.get(t["id"], []):
                text = text.replace(old, new)
            new_t = json.loads(text)
            if t["id"] in EDITS:
                new_t = EDITS[t["id"]](new_t)
            if new_t != t:
                new_t["version"] = bump(t["version"])
                tasks[i] = new_t
                changed = True
                print(f"{t['id']}: {t['version']} -> {new_t['version']}: {new_t['query']}")
        if changed:
            path.write_text(json.dumps(tasks, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
