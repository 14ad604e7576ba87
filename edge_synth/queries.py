"""Korean requests from a template grammar: persona, register (반말/존댓말), paraphrase, entity forms.

Optional LLM paraphrase through an OpenAI-compatible endpoint (`paraphrase_llm`), off by default.
"""

from __future__ import annotations

import random
import re
from typing import Any

import httpx

from kopa_bench.transforms import SIDO

_SIDO_FORMS = {}
for _code, _full, _short, _others in SIDO:
    forms = [_full, _short] + [o for o in _others if o.endswith("시")]
    for f in (_full, _short, *_others):
        _SIDO_FORMS[f] = forms

PERSONAS = {
    "banmal": ["", "", "있잖아, ", "급한데 ", "친구랑 얘기하다가 궁금해졌는데 ", "이번 주말에 나갈 건데 ", "자료 좀 보는 중인데 "],
    "jondae": ["", "", "안녕하세요. ", "업무 때문에 여쭤봅니다. ", "보고서 작성 중인데요, ", "실례지만 ", "부모님께 알려드리려고 하는데요, "],
}
ENDINGS = {
    "banmal": ["알려줘.", "알려줄래?", "좀 찾아줘.", "확인해줘.", "뭔지 알려줘.", "봐줄 수 있어?"],
    "jondae": ["알려주세요.", "알려주시겠어요?", "확인 부탁드립니다.", "찾아주실 수 있을까요?", "궁금합니다.", "조회해 주세요."],
}
THEN = {"banmal": ["그리고 ", "그 다음에 ", "거기서 ", "이어서 "], "jondae": ["그리고 ", "이어서 ", "그 결과로 ", "거기서 "]}


def _clean(text: str) -> str:
    text = re.sub(r"\(.*?\)", "", text or "").strip()
    return re.sub(r"\s+", " ", text)


def field_phrase(catalog: Any, tool: str, field: str) -> str:
    try:
        op = catalog.get(tool).op
    except Exception:  # noqa: BLE001
        return field
    for f in op.fields:
        if f.name == field and f.desc_ko:
            return _clean(f.desc_ko)
    return field


def concept(catalog: Any, tool: str) -> str:
    t = _clean(catalog.get(tool).op.title_ko)
    t = re.sub(r"\s*(조회|검색|목록 조회|정보 조회)$", "", t)
    return t


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


def _josa(word: str, pair: tuple[str, str]) -> str:
    """Pick 이/가, 은/는, 을/를, 과/와, 으로/로 by the last syllable's final consonant."""
    last = word.strip()[-1:] if word.strip() else ""
    if "가" <= last <= "힣":
        has = (ord(last) - 0xAC00) % 28 != 0
        return word + (pair[0] if has else pair[1])
    return word + pair[1]


def entities(task: dict, steps: list[str], catalog: Any) -> list[str]:
    """Literal argument values of the entity steps (skipping paging/version switches)."""
    from .candidates import is_control

    out = []
    prog = {s["id"]: s for s in task["program"]}
    for sid in steps:
        s = prog[sid]
        op = catalog.get(s["tool"]).op
        for k, v in s["args"].items():
            p = op.param(k)
            if p is None or is_control(p) or isinstance(v, (dict, list)) or str(v).startswith("$"):
                continue
            if p.enum and len(p.enum) <= 4 and str(v) not in _SIDO_FORMS:
                continue  # switches like dataTerm=DAILY are not entities
            out.append(str(v))
    return out


def make_query(traj: dict, catalog: Any, rng: random.Random) -> tuple[str, str]:
    """(query, register) for an executed trajectory."""
    task, facts, shape = traj["task"], traj["facts"], traj["task"]["shape"]
    reg = rng.choice(["banmal", "jondae"])
    persona = rng.choice(PERSONAS[reg])
    end = rng.choice(ENDINGS[reg])
    then = rng.choice(THEN[reg])
    prog = task["program"]
    ents = [entity_surface(e, rng) for e in entities(task, traj.get("entity_steps", ["s1"]), catalog)]
    ent = " ".join(ents[:2]) if ents else ""
    asks = [field_phrase(catalog, f["tool"], f["field"]) for f in facts if f.get("tool")]
    asks = list(dict.fromkeys(a for a in asks if a))
    ask = ", ".join(asks[:3]) if asks else "결과"
    first = concept(catalog, prog[0]["tool"])
    last = concept(catalog, prog[-1]["tool"])
    if shape == "sequential":
        forms = [f"{persona}{ent} 기준으로 {first} 찾아보고, {then}{last}에서 {_josa(ask, ('을', '를'))} {end}",
                 f"{persona}{_josa(ent, ('으로', '로'))} {first} 확인한 다음 {last} {ask} {end}",
                 f"{persona}{ent} 관련해서 {last} 쪽 {ask} {end}"]
    elif shape == "fan-out":
        cs = [concept(catalog, s["tool"]) for s in prog[1:]]
        forms = [f"{persona}{ent} {first} 찾아서 {' / '.join(cs)} 각각 {ask} {end}",
                 f"{persona}{ent}에 대해 {', '.join(cs)} 한꺼번에 보고 싶어. {ask} {end}" if reg == "banmal" else
                 f"{persona}{ent}에 대해 {', '.join(cs)} 정보를 한 번에 보고 싶습니다. {ask} {end}"]
    elif shape == "reduction":
        field, is_max = traj["plan"].get("reduce", ("값", True))
        fp = field_phrase(catalog, prog[0]["tool"], field)
        most = "제일 높은" if is_max else "제일 낮은"
        forms = [f"{persona}{ent} 중에서 {_josa(fp, ('이', '가'))} {most} 곳이 어디고, 거기 {last} {ask} {end}",
                 f"{persona}{ent}에서 {fp} {most} 데를 골라서 {last} {ask} {end}"]
    elif shape == "parallel":
        parts = []
        for s in prog:
            e = [entity_surface(x, rng) for x in entities(task, [s["id"]], catalog)]
            fs = [field_phrase(catalog, f["tool"], f["field"]) for f in facts if f["value"].__class__ is str and f["value"].startswith(f"${s['id']}.")]
            parts.append(f"{' '.join(e[:1])} {concept(catalog, s['tool'])} {fs[0] if fs else ''}".strip())
        joiner = rng.choice([", 그리고 ", ", 또 ", " / "])
        forms = [f"{persona}{joiner.join(parts)} {end}", f"{persona}세 가지 물어볼게. {joiner.join(parts)} {end}"
                 if len(parts) == 3 else f"{persona}두 가지 궁금한데, {joiner.join(parts)} {end}"]
    elif shape == "comparison":
        e1 = entities(task, ["s1"], catalog)
        e2 = entities(task, ["s2"], catalog)
        a = entity_surface(e1[0], rng) if e1 else "첫 번째"
        b = entity_surface(e2[0], rng) if e2 else "두 번째"
        forms = [f"{persona}{_josa(a, ('이랑', '랑'))} {b} {last} {ask} 비교해줘." if reg == "banmal" else
                 f"{persona}{_josa(a, ('과', '와'))} {b}의 {last} {ask} 비교해 주세요.",
                 f"{persona}{a} vs {b}, {ask} 어디가 더 높은지 {end}"]
    else:  # conditional
        cond = next((s["condition"] for s in prog if s.get("condition")), None)
        cf = cond["ref"].rsplit(".", 1)[1] if cond else "값"
        cfp = "결과 건수" if cf == "total_count" else field_phrase(catalog, prog[0]["tool"], cf)
        c1, c2 = concept(catalog, prog[1]["tool"]), concept(catalog, prog[2]["tool"])
        th = cond["value"] if cond else 0
        forms = [f"{persona}{ent} {_josa(cfp, ('이', '가'))} {th} 이상이면 {c1}, 아니면 {c2} 쪽으로 {end}",
                 f"{persona}{ent} 먼저 {first} 보고, {cfp} {th} 넘으면 {c1} 말고는 {c2} {end}"]
    q = rng.choice(forms)
    q = re.sub(r"\s+", " ", q).strip()
    return q, reg


def paraphrase_llm(query: str, base_url: str, model: str, api_key: str = "none", timeout: float = 30.0,
                   client: httpx.Client | None = None) -> str:
    """Rewrite a query with an OpenAI-compatible chat endpoint; returns the original on failure."""
    body = {"model": model, "temperature": 0.7, "messages": [
        {"role": "system", "content": "다음 요청을 같은 뜻의 자연스러운 한국어 한 문장으로 바꿔 써. 고유명사, 숫자, 날짜는 그대로 둬."},
        {"role": "user", "content": query}]}
    c = client or httpx.Client(timeout=timeout)
    try:
        r = c.post(base_url.rstrip("/") + "/chat/completions", json=body, headers={"Authorization": f"Bearer {api_key}"})
        r.raise_for_status()
        text = r.json()["choices"][0]["message"]["content"].strip()
        return text or query
    except Exception:  # noqa: BLE001 - paraphrase is optional
        return query
    finally:
        if client is None:
            c.close()
