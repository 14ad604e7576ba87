"""Public buildings at their real positions, shared by the legal-dong map (regions) and the
address database (juso), so every locating tool places them at the same point.

Coordinates are the buildings' WGS84 points as public geocoders (juso.go.kr, 브이월드, map
services) give them for the road address, entered by hand (no vendored file holds them; the
public-facility dataset lacks 서울특별시청); good to a few tens of metres.
"""

from __future__ import annotations

# (lawd_cd, legal dong, road, building number, name, lat, lon)
LANDMARKS: list[tuple[str, str, str, int, str, float, float]] = [
    ("11140", "태평로1가", "세종대로", 110, "서울특별시청", 37.566680, 126.978415),
    ("11110", "세종로", "세종대로", 209, "정부서울청사", 37.575147, 126.975329),
    ("11680", "삼성동", "학동로", 426, "강남구청", 37.517236, 127.047325),
    ("11560", "여의도동", "의사당대로", 1, "국회의사당", 37.531878, 126.914011),
]
