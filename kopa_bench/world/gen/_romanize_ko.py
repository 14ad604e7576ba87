"""Small Korean text helpers shared by the NEIS / Assembly / Seoul generators.

Revised Romanization of Hangul (syllable by syllable, with the common liaison rules a
reader expects: 'Gangnam', 'Hyehwa'), and person-name building blocks with hanja.
"""

from __future__ import annotations

_INIT = ["g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h"]
_MED = ["a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi",
        "yu", "eu", "ui", "i"]
_FIN = ["", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t",
        "ng", "t", "t", "k", "t", "p", "t"]
# final consonant before a vowel-initial syllable (liaison): carries over as an initial
_FIN_LIAISON = {1: "g", 4: "n", 7: "d", 8: "r", 16: "m", 17: "b", 19: "s", 21: "ng", 22: "j", 23: "ch",
                24: "k", 25: "t", 26: "p", 27: "h"}


def romanize(text: str) -> str:
    """'강남' -> 'gangnam', '혜화동' -> 'hyehwadong' (lower case; non-Hangul kept)."""
    out: list[str] = []
    chars = list(text)
    for i, ch in enumerate(chars):
        code = ord(ch) - 0xAC00
        if not 0 <= code < 11172:
            out.append(ch)
            continue
        ini, med, fin = code // 588, (code % 588) // 28, code % 28
        nxt = ord(chars[i + 1]) - 0xAC00 if i + 1 < len(chars) else -1
        nxt_vowel_initial = 0 <= nxt < 11172 and nxt // 588 == 11
        prev = ord(chars[i - 1]) - 0xAC00 if i > 0 else -1
        prev_fin = prev % 28 if 0 <= prev < 11172 else 0
        if ini == 5 and prev_fin in (4, 8):
            head = "l"  # ㄴ/ㄹ + ㄹ reads as ll (Sillim, Seolleung)
        elif ini == 5 and prev_fin not in (0, 8):
            head = "n"  # ㄹ after a consonant reads as ㄴ
        elif ini == 5 and prev_fin == 8:
            head = "l"
        elif ini == 11 and prev_fin in _FIN_LIAISON and i > 0:
            head = ""  # handled by the previous syllable's liaison
        else:
            head = _INIT[ini]
        tail = _FIN[fin]
        if fin == 4 and 0 <= nxt < 11172 and nxt // 588 == 5:
            tail = "l"
        if fin and nxt_vowel_initial and fin in _FIN_LIAISON:
            tail = _FIN_LIAISON[fin] if fin != 21 else "ng"
        out.append(head + _MED[med] + tail)
    return "".join(out)


def romanize_title(text: str) -> str:
    r = romanize(text)
    return r[:1].upper() + r[1:]


SURNAMES = [  # (hangul, hanja, English spelling, weight)
    ("김", "金", "KIM", 21), ("이", "李", "LEE", 15), ("박", "朴", "PARK", 8), ("최", "崔", "CHOI", 5),
    ("정", "鄭", "JUNG", 5), ("강", "姜", "KANG", 2.3), ("조", "趙", "CHO", 2.1), ("윤", "尹", "YOON", 2.1),
    ("장", "張", "JANG", 2), ("임", "林", "LIM", 1.7), ("한", "韓", "HAN", 1.5), ("오", "吳", "OH", 1.5),
    ("서", "徐", "SEO", 1.5), ("신", "申", "SHIN", 1.5), ("권", "權", "KWON", 1.4), ("황", "黃", "HWANG", 1.4),
    ("안", "安", "AHN", 1.4), ("송", "宋", "SONG", 1.3), ("류", "柳", "RYU", 1.2), ("전", "全", "JEON", 1.1),
    ("홍", "洪", "HONG", 1.1), ("고", "高", "KO", 0.9), ("문", "文", "MOON", 0.9), ("양", "梁", "YANG", 0.9),
    ("손", "孫", "SON", 0.9), ("배", "裵", "BAE", 0.8), ("백", "白", "BAEK", 0.7), ("허", "許", "HEO", 0.6),
    ("유", "劉", "YOO", 0.6), ("남", "南", "NAM", 0.5), ("심", "沈", "SIM", 0.5), ("노", "盧", "NOH", 0.5),
    ("하", "河", "HA", 0.4), ("곽", "郭", "KWAK", 0.4), ("성", "成", "SUNG", 0.4), ("차", "車", "CHA", 0.4),
    ("주", "朱", "JOO", 0.4), ("우", "禹", "WOO", 0.4), ("구", "具", "KOO", 0.4), ("민", "閔", "MIN", 0.3),
    ("진", "陳", "JIN", 0.3), ("위", "魏", "WI", 0.2), ("천", "千", "CHUN", 0.2), ("염", "廉", "YEOM", 0.2),
]
GIVEN = [  # syllable -> hanja
    ("민", "敏"), ("준", "俊"), ("서", "瑞"), ("영", "英"), ("진", "眞"), ("현", "賢"), ("수", "秀"), ("지", "智"),
    ("호", "浩"), ("성", "成"), ("동", "東"), ("재", "在"), ("석", "錫"), ("우", "宇"), ("상", "相"), ("철", "哲"),
    ("희", "熙"), ("정", "正"), ("경", "京"), ("숙", "淑"), ("미", "美"), ("은", "恩"), ("혜", "惠"), ("연", "淵"),
    ("태", "泰"), ("규", "圭"), ("병", "炳"), ("주", "周"), ("용", "龍"), ("기", "基"), ("원", "元"), ("한", "漢"),
    ("승", "承"), ("훈", "勳"), ("범", "範"), ("윤", "允"), ("선", "善"), ("혁", "赫"), ("종", "鍾"), ("덕", "德"),
    ("일", "一"), ("광", "光"), ("명", "明"), ("창", "昌"), ("형", "亨"), ("학", "學"), ("근", "根"), ("순", "順"),
    ("애", "愛"), ("옥", "玉"), ("인", "仁"), ("중", "中"), ("문", "文"), ("찬", "燦"), ("환", "煥"), ("완", "完"),
]


def person_name(rng) -> tuple[str, str, str]:
    """(hangul, hanja, 'KIM MINJUN') from a random.Random."""
    sur = rng.choices(SURNAMES, weights=[s[3] for s in SURNAMES])[0]
    a, b = rng.sample(GIVEN, 2)
    ko = sur[0] + a[0] + b[0]
    return ko, sur[1] + a[1] + b[1], f"{sur[2]} {romanize(a[0] + b[0]).upper()}"
