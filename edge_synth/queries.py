"""Korean requests from a template grammar: persona, register (반말/존댓말), paraphrase, entity forms.

A request must read like something a person types, so it never shows an API identifier:
every field is named by its Korean name (the spec's ``desc_ko``, then
:mod:`edge_synth.labels_ko`), a field without one is left out of the text, bare values say
what they are ("도시코드 26", "반경 1000m"), comparisons are worded by the field's type (a
concentration is higher or lower, a name is only different) and empty entity slots pick a
template that does not need them. All choices come from the caller's ``rng`` (deterministic
from the synthesis seed).

Optional LLM paraphrase through an OpenAI-compatible endpoint (`paraphrase_llm`), off by default.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Any, Callable


from kopa_bench.refdata import table_rows
from kopa_bench.transforms import SIDO

from .control_params import is_control
from .labels_ko import FIELD_KO, TOOL_FIELD_KO, TOPIC_KO
from .values import TEMPORAL_KINDS, infer_kind

_SIDO_FORMS = {}
for _code, _full, _short, _others in SIDO:
    forms = [_full, _short] + [o for o in _others if o.endswith("시")]
    for f in (_full, _short, *_others):
        _SIDO_FORMS[f] = forms

PERSONAS = {
    "banmal": ["", "", "있잖아, ", "급한데 ", "친구랑 얘기하다가 궁금해졌는데 ", "이번 주말에 나갈 건데 ", "자료 좀 보는 중인데 "],
    "jondae": ["", "", "안녕하세요. ", "업무 때문에 여쭤봅니다. ", "보고서 작성 중인데요, ", "실례지만 ", "부모님께 알려드리려고 하는데요, "],
}
THEN = {"banmal": ["그리고 ", "그 다음에 ", "거기서 ", "이어서 "], "jondae": ["그리고 ", "이어서 ", "그 결과로 ", "거기서 "]}
# Sentence endings that take the asked-for noun phrase (josa attached here).
_OBJ_ENDINGS: dict[str, list[Callable[[str], str]]] = {
    "banmal": [lambda n: f"{_josa(n, ('을', '를'))} 알려줘.", lambda n: f"{_josa(n, ('을', '를'))} 알려줄래?",
               lambda n: f"{n} 좀 찾아줘.", lambda n: f"{_josa(n, ('을', '를'))} 확인해줘.",
               lambda n: f"{_josa(n, ('이', '가'))} 뭔지 알려줘.", lambda n: f"{n} 좀 봐줄 수 있어?",
               lambda n: f"{_josa(n, ('이', '가'))} 궁금해."],
    "jondae": [lambda n: f"{_josa(n, ('을', '를'))} 알려주세요.", lambda n: f"{_josa(n, ('을', '를'))} 알려주시겠어요?",
               lambda n: f"{n} 확인 부탁드립니다.", lambda n: f"{_josa(n, ('을', '를'))} 찾아주실 수 있을까요?",
               lambda n: f"{_josa(n, ('이', '가'))} 궁금합니다.", lambda n: f"{_josa(n, ('을', '를'))} 조회해 주세요.",
               lambda n: f"{n} 좀 알려주실 수 있나요?"],
}
# Endings that follow a finished clause ("... 어디가 더 높은지 알려줘.").
_VERBS = {"banmal": ["알려줘.", "알려줄래?", "확인해줘.", "봐줄 수 있어?", "좀 찾아봐 줘."],
          "jondae": ["알려주세요.", "알려주시겠어요?", "확인 부탁드립니다.", "확인해 주실 수 있을까요?", "찾아봐 주세요."]}

# Template ids removed because they cannot make a request a person would make (kept so tests
# can assert they never come back).
REJECTED_TEMPLATES = {
    "cond:branch": "a decision on how many results a list has ('기념일 8건 이상이면 인구 통계') between "
                   "branches that share no subject",
    "cond:count": "any condition on a result count ('결과가 N건 이상 나오면'): nobody decides on that",
}

_HANGUL = re.compile(r"[가-힣]")
# A token that is an API identifier when it shows in a sentence: camelCase, snake_case, ALL_CAPS.
_IDENT = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Za-z]+_\w+|(?!(?:KRX|ISIN|HIRA|KOSIS|ECOS|NEIS|URL|API)\b)[A-Z]{3,}\d*)\b")


def _clean(text: str) -> str:
    text = re.sub(r"\(.*?\)", "", text or "").strip()
    return re.sub(r"\s+", " ", text)


def _short(desc: str) -> str:
    """The name part of a description: '발표일자 YYYYMMDD (어제·오늘만)' -> '발표일자'."""
    t = re.sub(r"\(.*?\)", "", desc or "")
    t = re.split(r"\(|:|;| — | - |=|→", t)[0]  # an unclosed '(' or an explanation after ':'
    # date/time format patterns: YYYYMMDD, yyyy-MM-dd HH:mm, HHMM ...
    t = re.sub(r"\b(?:[Yy]{4}[-./]?(?:MM)?[-./]?(?:[Dd]{2})?(?:\s?HH:?mm)?|HH:?(?:MM|mm)|MM|DD)\b", "", t)
    t = re.sub(r"\bWGS84\b|\bY/N\b", "", t)
    t = t.split(",")[0]
    words = []
    for w in t.split():
        if re.search(r"[a-z]", w) and not _HANGUL.search(w):
            break  # 'lasc/ldes 법령명 ...': the name ended, a list of switch values began
        words.append(w)
    t = " ".join(words)
    t = re.sub(r"\d+\s*자리", "", t)
    t = re.sub(r"\s+", " ", t).strip(" ,/·-.")
    return t


def _readable(text: str) -> bool:
    return bool(text) and bool(_HANGUL.search(text)) and not _IDENT.search(text)


def field_label(catalog: Any, tool: str, field: str) -> str | None:
    """The Korean name of a response field, or None when none is known (callers drop it)."""
    if field == "total_count":
        return "결과 건수"
    if (tool, field) in TOOL_FIELD_KO:
        return TOOL_FIELD_KO[(tool, field)]
    try:
        op = catalog.get(tool).op
    except Exception:  # noqa: BLE001 - an unknown tool has no names
        op = None
    if op is not None:
        for f in op.fields:
            if f.name == field and _readable(_short(f.desc_ko)):
                return _short(f.desc_ko)
    if field in FIELD_KO:
        return FIELD_KO[field]
    if op is not None:
        p = op.param(field)
        if p is not None and _readable(_short(p.desc_ko)):
            return _short(p.desc_ko)
    if _HANGUL.search(field) and not re.search(r"[A-Za-z]", field):
        return field.replace("_", " ")  # law.go.kr names its fields in Korean
    return None


def field_phrase(catalog: Any, tool: str, field: str) -> str:
    """Korean name of a field; the raw name only when none is known (answer labels need one)."""
    return field_label(catalog, tool, field) or field


def concept(catalog: Any, tool: str) -> str:
    t = _clean(catalog.get(tool).op.title_ko)
    t = re.sub(r"\s*(조회|검색|목록 조회|정보 조회)$", "", t)
    return t


def topic(catalog: Any, tool: str) -> str:
    """What a person calls a tool's information ('약국 정보'), not the API title."""
    if tool in TOPIC_KO:
        return TOPIC_KO[tool]
    t = concept(catalog, tool)
    return t if _readable(t) else "관련 정보"


def entity_surface(value: Any, rng: random.Random) -> str:
    text = str(value)
    if text in _SIDO_FORMS:
        return rng.choice(_SIDO_FORMS[text])
    m = re.fullmatch(r"(20\d{2})(\d{2})(\d{2})", text)
    if m:
        return rng.choice([f"{int(m[2])}월 {int(m[3])}일", f"{m[1]}년 {int(m[2])}월 {int(m[3])}일", text])
    m = re.fullmatch(r"(20\d{2})(\d{2})", text)
    if m:
        return rng.choice([f"{m[1]}년 {int(m[2])}월", f"{int(m[2])}월"])
    if re.fullmatch(r"[가-힣]+동", text):
        return rng.choice([text, f"{text} 쪽", f"{text} 근처"])
    return text


# Final-consonant of the Korean reading of a trailing digit or latin letter (0 영, 1 일, 3 삼 ...).
_DIGIT_FINAL = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False, "6": True, "7": True,
                "8": True, "9": False}
_LATIN_FINAL = set("lmnLMNR")  # 엘, 엠, 엔, 알


def _josa(word: str, pair: tuple[str, str]) -> str:
    """Pick 이/가, 은/는, 을/를, 과/와, 이랑/랑, 으로/로 by the final sound of the last syllable."""
    w = word.strip()
    base = re.sub(r"\s*\([^()]*\)$", "", w) or w  # "중식(식사코드 2)" reads as "중식"
    last = base[-1:] if base else ""
    if "가" <= last <= "힣":
        jong = (ord(last) - 0xAC00) % 28
        has = jong != 0
        if pair == ("으로", "로") and jong == 8:  # ㄹ: 서울로
            has = False
    elif last.isdigit():
        has = _DIGIT_FINAL[last]
    elif last == "m":  # 미터
        has = False
    else:
        has = last in _LATIN_FINAL
    return word + (pair[0] if has else pair[1])


def _join(items: list[str]) -> str:
    """'A', 'A와 B', 'A, B, C'."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return items[0] if items else ""
    if len(items) == 2:
        return f"{_josa(items[0], ('과', '와'))} {items[1]}"
    return ", ".join(items)


def entities(task: dict, steps: list[str], catalog: Any) -> list[str]:
    """Literal argument values of the entity steps (skipping paging/version switches)."""
    return [str(v) for _sid, _p, v in entity_args(task, steps, catalog)]


def entity_args(task: dict, steps: list[str], catalog: Any) -> list[tuple[str, Any, Any]]:
    """(step id, Param, value) of the literal, non-empty entity arguments of `steps`."""
    out = []
    prog = {s["id"]: s for s in task["program"]}
    for sid in steps:
        if sid not in prog:
            continue
        s = prog[sid]
        op = catalog.get(s["tool"]).op
        for k, v in s["args"].items():
            p = op.param(k)
            if p is None or is_control(p) or isinstance(v, (dict, list)) or str(v).startswith("$"):
                continue
            if v is None or not str(v).strip():
                continue  # an empty value is no entity: the template must not show a hole
            if p.enum and len(p.enum) <= 4 and str(v) not in _SIDO_FORMS:
                continue  # switches like dataTerm=DAILY are not entities
            out.append((sid, p, v))
    return out


def _enum_meaning(desc: str, value: str) -> str | None:
    """'식사코드 (1 조식, 2 중식, 3 석식)' and '2' -> '중식'."""
    m = re.search(rf"(?:^|[\s(,:;]){re.escape(value)}\s+([가-힣][가-힣·/]*)", desc or "")
    return m.group(1) if m else None


@lru_cache(maxsize=1)
def _code_names() -> dict[str, dict[str, str]]:
    """Region codes a person never types, by the parameter that takes them -> the place they name
    (the vendored code lists: 법정동 codes, TAGO city codes, NEIS offices, TourAPI areas)."""
    legal = {r["code"]: r["name"] for r in table_rows("legal_dong_codes") if r.get("status") == "존재"}
    lawd = {c[:5]: n for c, n in legal.items() if c.endswith("00000") and not c.endswith("00000000")}
    for c, n in legal.items():
        if c.endswith("00000000"):
            lawd.setdefault(c[:5], n)
    return {"lawd5": lawd, "legal": legal,
            "tago_city": {r["citycode"]: r["cityname"] for r in table_rows("tago_city_codes")},
            "neis_office": {r["atpt_ofcdc_sc_code"]: r["atpt_ofcdc_sc_nm"] for r in table_rows("neis_offices")},
            "tour_area": {r["area_code"]: r["name"] for r in table_rows("tourapi_area_codes")}}


_CODE_PARAMS = {"lawd_cd": "lawd5", "objl1": "lawd5", "admcd": "legal", "citycode": "tago_city",
                "atpt_ofcdc_sc_code": "neis_office", "areacode": "tour_area", "ldongregncd": "lawd5"}


def code_place(pname: str, value: Any) -> str | None:
    """The place a region code names ('LAWD_CD' 11110 -> '서울 종로구'), short 시도 form; None if unknown."""
    table = _CODE_PARAMS.get(pname.lower())
    if table is None:
        return None
    name = _code_names()[table].get(str(value).strip())
    if not name:
        return None
    head, _, rest = name.split("/")[0].partition(" ")
    short = next((f[2] for f in SIDO if head in (f[1], f[2]) or head in f[3]), None)
    return f"{short} {rest}" if short and rest else short or name


def name_value(p: Any, value: Any, rng: random.Random, bare: bool = False) -> str:
    """A value as a person says it: places and names as they are, region codes as the place they
    name, other bare codes and numbers with what they are ('도시코드 26', '반경 1000m', '2026년');
    `bare` drops the name (second of a pair)."""
    text = str(value).strip()
    place = code_place(p.name, text) if p is not None else None
    if place:
        return place
    surf = entity_surface(text, rng)
    if _HANGUL.search(surf):
        return surf
    label = _short(p.desc_ko) if p is not None else ""
    if not _readable(label):
        label = ""
    unit = "m" if p is not None and (p.name.lower() == "radius" or re.search(r"\(m\b|미터", p.desc_ko or "")) else ""
    if re.fullmatch(r"(19|20)\d{2}", surf) and re.search(r"연도|년도|학년도|year", f"{label} {p.name if p else ''}", re.I):
        return f"{surf}년"
    if re.fullmatch(r"\d{1,2}", surf) and label.startswith("월"):
        return f"{int(surf)}월"
    meaning = _enum_meaning(p.desc_ko if p is not None else "", surf)
    if bare or not label:
        return f"{surf}{unit}"
    if meaning:
        return f"{meaning}({label} {surf})"
    return f"{label} {surf}{unit}"


def _ent_phrase(items: list[tuple[str, Any, Any]], rng: random.Random, k: int = 2) -> str:
    named = [name_value(p, v, rng) for _s, p, v in items[:k]]
    named = [n for n in named if n]
    if len(named) == 2 and all(_HANGUL.search(n) and "(" not in n and not re.search(r"\d", n) for n in named):
        return " ".join(named)  # "서울 종로구"
    return ", ".join(named)


def _numeric_wording(label: str) -> tuple[str, str]:
    """(adjective for a superlative, question form) for comparing a numeric field."""
    if re.search(r"건수|개수|수$|인원|인구|횟수", label):
        return "많은", "많은지"
    if re.search(r"거리", label):
        return "가까운", "가까운지"
    if re.search(r"면적", label):
        return "넓은", "넓은지"
    if re.search(r"농도|수치|지수|등급|값|금액|가격|요금|기온|온도|습도|보증금|월세|률|율", label):
        return "높은", "높은지"
    return "큰", "큰지"


_NUMERIC_KINDS = {"measure", "grade", "meta", "number"}


def field_type(catalog: Any, tool: str, field: str, values: list[Any]) -> str:
    """'number', 'time' or 'text': how a comparison of this field may be worded."""
    label = field_label(catalog, tool, field) or ""
    kind = infer_kind(field, label, [v for v in values if v not in (None, "")])
    nums = [v for v in values if v not in (None, "") and re.fullmatch(r"-?[\d,]+(\.\d+)?", str(v).strip())]
    if kind in TEMPORAL_KINDS:
        return "time"
    if kind in _NUMERIC_KINDS and values and len(nums) == len([v for v in values if v not in (None, "")]):
        return "number"
    return "text"


def _fact_step(f: dict) -> str | None:
    v = f.get("value")
    if isinstance(v, str) and v.startswith("$s"):
        return v[1:].split(".", 1)[0]
    return None


def _asks(catalog: Any, facts: list[dict], pred=lambda f: True) -> list[str]:
    out = []
    for f in facts:
        if not f.get("tool") or not pred(f) or f.get("field") == "branch":
            continue
        if isinstance(f.get("value"), dict):
            continue  # a computed fact (difference, branch) is not asked for by name
        lab = field_label(catalog, f["tool"], f["field"])
        if lab:
            out.append(lab)
    return list(dict.fromkeys(out))


def make_query(traj: dict, catalog: Any, rng: random.Random) -> tuple[str, str]:
    """(query, register) for an executed trajectory."""
    q, reg, _tid = render_query(traj, catalog, rng)
    return q, reg


def render_query(traj: dict, catalog: Any, rng: random.Random) -> tuple[str, str, str]:
    """(query, register, template id) for an executed trajectory."""
    task, facts, shape = traj["task"], traj["facts"], traj["task"]["shape"]
    reg = rng.choice(["banmal", "jondae"])
    P = rng.choice(PERSONAS[reg])
    end = rng.choice(_OBJ_ENDINGS[reg])
    verb = rng.choice(_VERBS[reg])
    then = rng.choice(THEN[reg])
    prog = task["program"]
    T1, TL = topic(catalog, prog[0]["tool"]), topic(catalog, prog[-1]["tool"])
    ent_items = entity_args(task, traj.get("entity_steps", ["s1"]), catalog)
    ent = _ent_phrase(ent_items, rng)
    asks = _asks(catalog, facts)
    ask = _join(asks[:3]) or "결과"
    ban = reg == "banmal"
    sel = (traj.get("plan") or {}).get("select")
    if shape == "sequential" and sel:
        forms = _selection_forms(sel, catalog, prog, P, ent, T1, TL, ask, end)
    elif shape == "sequential":
        forms = {
            "seq:find-then": f"{P}{ent + ' 기준으로 ' if ent else ''}{_josa(T1, ('을', '를'))} 먼저 찾아보고, {then}{TL}에서 {end(ask)}",
            "seq:of": f"{P}{ent + '에 해당하는 ' if ent else ''}{TL}의 {end(ask)}",
        }
        if ent:
            forms["seq:via"] = f"{P}{_josa(ent, ('으로', '로'))} {_josa(T1, ('을', '를'))} 확인한 다음 {TL}의 {end(ask)}"
            forms["seq:about"] = f"{P}{ent} 관련해서 {TL} 쪽 {end(ask)}"
    elif shape == "fan-out":
        branches = []
        for s in prog[1:]:
            a = _asks(catalog, facts, lambda f, sid=s["id"]: _fact_step(f) == sid)
            branches.append((topic(catalog, s["tool"]), _join(a[:2])))
        with_ask = [f"{t}의 {a}" if a else t for t, a in branches]
        where = [f"{t}에서는 {a}" for t, a in branches if a]
        ctx = f"{ent} 기준으로 " if ent else ""
        forms = {
            "fan:each": f"{P}{ctx}{_josa(T1, ('을', '를'))} 찾은 다음 {end(_join(with_ask) + ' 각각')}",
            "fan:together": f"{P}{ctx}{_join([t for t, _ in branches])} 한꺼번에 보고 싶어. {end(ask)}" if ban else
                            (f"{P}{ctx}{_join([t for t, _ in branches])} 정보를 한 번에 보고 싶습니다. {end(ask)}"),
        }
        if where:
            forms["fan:where"] = f"{P}{ctx}{T1}에서 시작해서 {', '.join(where)} {verb}"
    elif shape == "reduction":
        field, is_max = (traj.get("plan") or {}).get("reduce", (None, True))
        fp = field_label(catalog, prog[0]["tool"], field) if field else None
        adj, _q = _numeric_wording(fp or "")
        most = ("제일 " if ban else "가장 ") + (adj if is_max else {"많은": "적은", "가까운": "먼", "넓은": "좁은",
                                                                   "높은": "낮은", "큰": "작은"}[adj])
        key_fact = next((f for f in facts if str(f.get("value", "")).startswith("$s1.picked.") and f["field"] != field), None)
        key = field_label(catalog, key_fact["tool"], key_fact["field"]) if key_fact else None
        # "측정소명" -> "측정소": the pick is named by what it is; a code or address is not a name
        key = key[:-1] if key and len(key) > 2 and key.endswith("명") else None
        tail = _join(_asks(catalog, facts, lambda f: _fact_step(f) not in ("s1",))[:2]) or "정보"
        scope = f"{ent}의 {T1} 중에서" if ent else f"{T1} 중에서"
        if fp:
            forms = {
                "red:where-then": f"{P}{scope} {_josa(fp, ('이', '가'))} {most} 곳이 어디인지, "
                                  f"{'그리고 ' if then == '거기서 ' else then}거기 {TL}의 {end(tail)}",
                "red:pick": f"{P}{scope} {fp} {most} {_josa(key or '곳', ('을', '를'))} 골라서 {TL}의 {end(tail)}",
            }
            if key:
                forms["red:key"] = f"{P}{scope} {_josa(fp, ('이', '가'))} {most} {_josa(key, ('이', '가'))} 어디인지, 그리고 그곳 {TL}의 {tail}도 {verb}"
        else:  # no name for the ranked field: ask for the pick without naming it
            forms = {"red:plain": f"{P}{scope} 하나를 골라서 {TL}의 {end(tail)}"}
    elif shape == "parallel":
        subject = (traj.get("plan") or {}).get("subject")
        first = [(p, v) for _sid, p, v in entity_args(task, ["s1"], catalog) if p.name == subject]
        about = name_value(first[0][0], first[0][1], rng) if first else ""
        parts = []
        for s in prog:
            fs = _asks(catalog, facts, lambda f, sid=s["id"]: _fact_step(f) == sid)
            head = topic(catalog, s["tool"])
            if not about:  # no shared subject named: each call says its own
                e = [name_value(p, v, rng) for _sid, p, v in entity_args(task, [s["id"]], catalog)[:1]]
                head = f"{e[0]} {head}" if e else head
            parts.append(f"{head}의 {fs[0]}" if fs else head)
        n = "세" if len(parts) == 3 else "두" if len(parts) == 2 else str(len(parts))
        pre = f"{P}{about} 기준으로 " if about else P
        forms = {
            "par:list": f"{pre}{end(_join(parts))}",
            "par:count": (f"{pre}{n} 가지 물어볼게. " if ban else f"{pre}{n} 가지 여쭤볼게요. ")
                         + " ".join(f"{i}) {x}" for i, x in enumerate(parts, start=1)) + f" {verb}",
            "par:also": f"{pre}{_join(parts[:-1])}, 그리고 {parts[-1]}도 같이 {verb}" if len(parts) > 1 else f"{pre}{parts[0]} {verb}",
        }
    elif shape == "comparison":
        a, b, ctx = _comparison_sides(task, catalog, rng)
        cf_fact = next((f for f in facts if f.get("tool") and not isinstance(f.get("value"), dict)), None)
        cf = field_label(catalog, cf_fact["tool"], cf_fact["field"]) if cf_fact else None
        vals = [f.get("resolved") for f in facts if cf_fact and f.get("field") == cf_fact["field"]
                and not isinstance(f.get("value"), dict)]
        kind = field_type(catalog, cf_fact["tool"], cf_fact["field"], vals) if cf_fact else "text"
        what = f"{TL} {cf}" if cf else TL
        ab = _join([a, b])
        pre = f"{P}{ctx + ' 기준으로 ' if ctx else ''}"
        if kind == "number":
            _adj, qf = _numeric_wording(cf or "")
            forms = {
                "cmp:num-which": f"{pre}{ab}의 {_josa(what, ('을', '를'))} 비교해서 어느 쪽이 더 {qf} {verb}",
                "cmp:num-vs": f"{pre}{a} vs {b}, {what} 어디가 더 {qf} {verb}",
                "cmp:num-diff": f"{pre}{ab} 중 {_josa(what, ('이', '가'))} 더 {qf}, 차이는 얼마나 나는지 {verb}",
            }
        elif kind == "time":
            forms = {
                "cmp:time-each": f"{pre}{ab}의 {_josa(what, ('이', '가'))} 각각 언제인지 {verb}",
                "cmp:time-which": f"{pre}{ab} 중 {_josa(what, ('이', '가'))} 더 이른 쪽이 어디인지 {verb}",
            }
        else:
            forms = {
                "cmp:text-each": f"{pre}{ab}의 {_josa(what, ('이', '가'))} 각각 무엇인지 {verb}",
                "cmp:text-diff": (f"{pre}{ab}, {_josa(what, ('이', '가'))} 어떻게 다른지 비교해줘." if ban else
                                  f"{pre}{ab}의 {_josa(what, ('이', '가'))} 어떻게 다른지 비교해 주세요."),
                "cmp:text-both": f"{pre}{_josa(a, ('이랑', '랑'))} {b} 각각 {end(what)}",
            }
    else:  # conditional
        cond = next(s["condition"] for s in prog if s.get("condition"))
        cf = cond["ref"].rsplit(".", 1)[1]
        th = cond["value"]
        cfp = field_label(catalog, prog[0]["tool"], cf) or "측정값"
        bf = (traj.get("plan") or {}).get("branch_fields") or {}
        arms = []
        for st in prog[1:3]:
            lab = field_label(catalog, st["tool"], bf[st["id"]]) if st["id"] in bf else None
            t = topic(catalog, st["tool"])
            arms.append(f"{t}의 {lab}" if lab else t)
        c1, c2 = arms
        subj = f"{ent}의 {T1}" if ent else T1
        forms = {
            "cond:if-else": f"{P}{subj}에서 {_josa(cfp, ('이', '가'))} {th} 이상이면 {_josa(c1, ('을', '를'))}, "
                            f"그보다 낮으면 {_josa(c2, ('을', '를'))} {verb}",
            "cond:check-first": (f"{P}{subj}에서 {_josa(cfp, ('이', '가'))} {th} 이상인지 먼저 봐 줘. "
                                 f"그렇다면 {_josa(c1, ('을', '를'))}, 아니라면 {_josa(c2, ('을', '를'))} 알려줘."
                                 if ban else
                                 f"{P}{subj}에서 {_josa(cfp, ('이', '가'))} {th} 이상인지 먼저 확인해 주세요. "
                                 f"그렇다면 {_josa(c1, ('을', '를'))}, 아니라면 {_josa(c2, ('을', '를'))} 알려주세요."),
            "cond:depends": f"{P}{subj} {cfp}에 따라 다르게 알고 싶은데, {th} 이상이면 {c1}, 미만이면 {c2} 쪽으로 {verb}",
        }
    tid = rng.choice(sorted(forms))
    q = re.sub(r"\s+", " ", forms[tid]).strip()
    q = re.sub(r"\s+([,.?])", r"\1", q)
    return q, reg, tid


def _selection_forms(sel: dict, catalog: Any, prog: list[dict], P: str, ent: str, T1: str, TL: str, ask: str,
                     end) -> dict[str, str]:
    """Requests whose second step filters a list by the first step's answer: the record nearest
    A's place, or the one with A's code / containing A's name."""
    if sel["match"] == "nearest":
        forms = {"sel:nearest": f"{P}{ent + '의 ' if ent else ''}{T1} 위치를 확인하고, 거기서 가장 가까운 {TL}의 {end(ask)}"}
        if ent:
            forms["sel:near"] = f"{P}{ent} 근처에서 제일 가까운 {TL} {end(ask)}"
        return forms
    fl = field_label(catalog, prog[0]["tool"], sel["from_field"]) or "이름"
    ctx = f"{ent} 기준으로 " if ent else ""
    if sel["match"] == "equal":
        return {"sel:same": f"{P}{ctx}{T1}에 나오는 {_josa(fl, ('과', '와'))} 같은 {TL}의 {end(ask)}",
                "sel:match": f"{P}{ctx}{_josa(T1, ('을', '를'))} 보고, 그 {fl}에 해당하는 {TL}의 {end(ask)}"}
    return {"sel:contains": f"{P}{ctx}{T1}의 {_josa(fl, ('이', '가'))} 들어간 {TL}의 {end(ask)}",
            "sel:named": f"{P}{ctx}{_josa(T1, ('을', '를'))} 찾고, 그 {_josa(fl, ('이', '가'))} 이름에 들어간 {TL}의 {end(ask)}"}


def _comparison_sides(task: dict, catalog: Any, rng: random.Random) -> tuple[str, str, str]:
    """The two compared values, named once ('도시코드 26', '39'), and the shared context."""
    e1 = entity_args(task, ["s1"], catalog)
    e2 = entity_args(task, ["s2"], catalog)
    d2 = {p.name: v for _s, p, v in e2}
    diff = [(p, v, d2[p.name]) for _s, p, v in e1 if p.name in d2 and str(d2[p.name]) != str(v)]
    same = [(p, v) for _s, p, v in e1 if p.name in d2 and str(d2[p.name]) == str(v)]
    if diff:
        p, v1, v2 = diff[0]
        a, b = name_value(p, v1, rng), name_value(p, v2, rng)
        # the second value shares the first one's name: "도시코드 26과 39", "2026년 10월과 11월"
        pa, _, _ = a.rpartition(" ")
        pb, _, rest = b.rpartition(" ")
        if pa and pa == pb and "(" not in a:
            b = rest
    else:
        # a side called without entity arguments is the unfiltered listing
        a = name_value(e1[0][1], e1[0][2], rng) if e1 else "전체 조회"
        b = name_value(e2[0][1], e2[0][2], rng) if e2 else "전체 조회"
    ctx = name_value(same[0][0], same[0][1], rng) if same else ""
    return a, b, ctx


def paraphrase_llm(query: str, base_url: str, model: str, api_key: str = "none", timeout: float = 30.0,
                   max_retries: int = 2) -> str:
    """Rewrite a query with an OpenAI-compatible chat endpoint (openai SDK, its own retries);
    returns the original on failure: the paraphrase is optional."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries)
    try:
        r = client.chat.completions.create(model=model, temperature=0.7, messages=[
            {"role": "system", "content": "다음 요청을 같은 뜻의 자연스러운 한국어 한 문장으로 바꿔 써. 고유명사, 숫자, 날짜는 그대로 둬."},
            {"role": "user", "content": query}])
        text = (r.choices[0].message.content or "").strip()
        return text or query
    except openai.OpenAIError:
        return query
    finally:
        client.close()
