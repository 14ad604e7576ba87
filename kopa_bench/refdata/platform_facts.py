"""Facts of the real services that both an envelope (kopa_bench.protocols) and a world answer
(kopa_bench.world.answers) need."""

from __future__ import annotations

#: 시도 short forms juso.go.kr expands to the full name (also VWorld's geocoder).
JUSO_SIDO_FULL = {
    "서울": "서울특별시", "서울시": "서울특별시", "부산": "부산광역시", "부산시": "부산광역시", "대구": "대구광역시", "인천": "인천광역시",
    "광주": "광주광역시", "대전": "대전광역시", "울산": "울산광역시", "세종": "세종특별자치시", "세종시": "세종특별자치시",
    "경기": "경기도", "강원": "강원특별자치도", "강원도": "강원특별자치도", "충북": "충청북도", "충남": "충청남도",
    "전북": "전북특별자치도", "전라북도": "전북특별자치도", "전남": "전라남도", "경북": "경상북도", "경남": "경상남도",
    "제주": "제주특별자치도", "제주도": "제주특별자치도",
}
#: addrLinkApi answers E0015 when a keyword matches more addresses than this.
JUSO_MAX_RESULTS = 9000
#: KOSIS statisticsParameterData answers err 31 when a request selects more cells than this.
KOSIS_MAX_CELLS = 40000
