"""Korean names for response fields the catalog returns but does not declare, and for tools.

EDGE asks about any column a tool really returns (``answer_fields`` samples the records), and
many columns are not declared in the catalog specs (AirKorea pollutant columns, NEIS codes,
TourAPI classification codes ...), so the spec's ``desc_ko`` cannot name them. These names are
the real Korean item names from the providers' documentation (the vendored reference notes on
each API); :func:`edge_synth.queries.field_label` consults the spec first, then this table.
"""

from __future__ import annotations

# field name -> Korean name (the same name means the same thing across the catalog's tools)
FIELD_KO: dict[str, str] = {
    # AirKorea
    "so2Value": "아황산가스 농도", "coValue": "일산화탄소 농도", "o3Value": "오존 농도",
    "no2Value": "이산화질소 농도", "pm10Value": "미세먼지 농도", "pm25Value": "초미세먼지 농도",
    "pm10Value24": "미세먼지 24시간 예측이동농도", "pm25Value24": "초미세먼지 24시간 예측이동농도",
    "khaiValue": "통합대기환경수치", "khaiGrade": "통합대기환경지수 등급",
    "so2Grade": "아황산가스 등급", "coGrade": "일산화탄소 등급", "o3Grade": "오존 등급", "no2Grade": "이산화질소 등급",
    "pm10Grade": "미세먼지 등급", "pm25Grade": "초미세먼지 등급",
    "pm10Grade1h": "미세먼지 1시간 등급", "pm25Grade1h": "초미세먼지 1시간 등급",
    "so2Flag": "아황산가스 측정자료 상태", "coFlag": "일산화탄소 측정자료 상태", "o3Flag": "오존 측정자료 상태",
    "no2Flag": "이산화질소 측정자료 상태", "pm10Flag": "미세먼지 측정자료 상태", "pm25Flag": "초미세먼지 측정자료 상태",
    "mangName": "측정망", "stationCode": "측정소 코드", "stationName": "측정소명", "dataTime": "측정일시",
    "sidoName": "시도명", "addr": "주소",
    # HIRA
    "clCd": "종별코드", "clCdNm": "종별", "estbDd": "개설일자", "postNo": "우편번호", "sidoCdNm": "시도",
    "ykiho": "요양기호",
    # TourAPI
    "cat1": "대분류", "cat2": "중분류", "cat3": "소분류",
    "lclsSystm1": "분류체계 대분류", "lclsSystm2": "분류체계 중분류", "lclsSystm3": "분류체계 소분류",
    "cpyrhtDivCd": "저작권 유형", "createdtime": "등록일시", "modifiedtime": "수정일시",
    "firstimage": "대표 이미지", "firstimage2": "대표 이미지 썸네일", "mlevel": "지도 레벨", "zipcode": "우편번호",
    "areacode": "지역코드", "sigungucode": "시군구코드", "lDongRegnCd": "법정동 시도코드",
    "lDongSignguCd": "법정동 시군구코드", "lDongRegnCd+lDongSignguCd": "법정동 시군구 지역코드",
    "addr1": "주소", "addr2": "상세주소", "tel": "전화번호", "telname": "전화번호명", "title": "이름",
    "contentid": "콘텐츠 ID", "contenttypeid": "관광타입", "homepage": "홈페이지", "mapx": "경도", "mapy": "위도",
    "checkouttime": "퇴실 시간", "chkcooking": "객실 내 취사 여부", "infocenterfood": "음식점 문의 및 안내",
    "infocenterlodging": "숙소 문의 및 안내", "opentimefood": "영업시간", "packing": "포장 가능 여부",
    "parkinglodging": "숙소 주차 시설", "reservationlodging": "숙소 예약 안내", "restdatefood": "쉬는 날",
    "roomcount": "객실 수", "treatmenu": "취급 메뉴", "usefee": "이용 요금", "usetimeculture": "이용 시간",
    # MOLIT
    "sggCd": "시군구코드", "jibun": "지번", "dealYear": "계약 연도", "dealMonth": "계약 월", "dealDay": "계약일",
    "floor": "층", "buildYear": "건축년도",
    # FSC
    "basDt": "기준일자", "isinCd": "ISIN 코드", "mrktCtg": "시장 구분", "itmsNm": "종목명",
    # ECOS
    "STAT_CODE": "통계표코드", "STAT_NAME": "통계명", "ITEM_CODE1": "통계항목 코드", "ITEM_NAME1": "통계항목명",
    "GRP_NAME": "항목 그룹명", "P_ITEM_CODE": "상위 통계항목 코드", "P_ITEM_NAME": "상위 통계항목명",
    "WEIGHT": "가중치",
    # juso
    "admCd": "행정구역코드", "rnMgtSn": "도로명코드", "bdMgtSn": "건물관리번호", "udrtYn": "지하 여부",
    "buldMnnm": "건물본번", "buldSlno": "건물부번", "bdKdcd": "공동주택 여부", "detBdNmList": "상세 건물명",
    "emdNo": "읍면동 일련번호", "engAddr": "영문 주소", "liNm": "법정리명", "lnbrMnnm": "지번 본번",
    "lnbrSlno": "지번 부번", "mtYn": "산 여부", "roadAddrPart2": "참고 주소",
    # KOSIS
    "ORG_ID": "기관 ID", "TBL_ID": "통계표 ID", "TBL_NM": "통계표명", "ITM_ID": "항목 ID", "ITM_NM": "항목명",
    "UNIT_NM": "단위", "PRD_SE": "수록 주기", "LST_CHN_DE": "최종 수정일",
    # Assembly
    "AGE": "대수", "ASSEM_ADDR": "의원실 주소", "BTH_GBN_NM": "음/양력 구분", "CMITS": "소속 위원회 목록",
    "HOMEPAGE": "홈페이지", "JOB_RES_NM": "직책", "MEM_TITLE": "약력", "SECRETARY": "비서관", "SECRETARY2": "비서",
    "STAFF": "보좌관", "CMT_PRESENT_DT": "소관위 상정일", "CMT_PROC_DT": "소관위 처리일",
    "CMT_PROC_RESULT_CD": "소관위 처리결과", "COMMITTEE_DT": "소관위 회부일", "COMMITTEE_ID": "소관위원회 ID",
    "DETAIL_LINK": "상세 페이지", "LAW_PRESENT_DT": "법사위 상정일", "LAW_PROC_DT": "법사위 처리일",
    "LAW_PROC_RESULT_CD": "법사위 처리결과", "LAW_SUBMIT_DT": "법사위 회부일", "MEMBER_LIST": "제안자 목록",
    "PUBL_MONA_CD": "공동발의자 코드", "BILL_ID": "의안 ID", "BILL_KIND_CD": "의안 종류", "BILL_NAME": "의안명",
    "BILL_NO": "의안번호", "BILL_URL": "의안 상세 링크", "CURR_COMMITTEE": "소관위원회",
    "CURR_COMMITTEE_ID": "소관위원회 ID", "LINK_URL": "상세 링크", "DISP_ORDER": "표시 순서", "HJ_NM": "한자 이름",
    "MEMBER_NO": "의원 번호", "POLY_CD": "정당 코드",
    # NEIS
    "ATPT_OFCDC_SC_CODE": "시도교육청코드", "ATPT_OFCDC_SC_NM": "시도교육청명", "SD_SCHUL_CODE": "행정표준코드",
    "SCHUL_NM": "학교명", "AY": "학년도", "SEM": "학기", "CLRM_NM": "강의실명", "DDDEP_NM": "학과명",
    "DGHT_CRSE_SC_NM": "주야과정명", "DGHT_SC_NM": "주야 구분", "ORD_SC_NM": "계열명",
    "SCHUL_CRSE_SC_NM": "학교과정명", "ENE_BFE_SEHF_SC_NM": "입시 전후기 구분",
    "HS_GNRL_BUSNS_SC_NM": "고등학교 일반/실업 구분", "INDST_SPECL_CCCCL_EXST_YN": "산업체 특별학급 존재 여부",
    "SPCLY_PURPS_HS_ORD_NM": "특수목적고 계열", "LOAD_DTM": "자료 수정일", "ORG_FAXNO": "팩스번호",
    "MLSV_FROM_YMD": "급식 시작일자", "MLSV_TO_YMD": "급식 종료일자", "EVENT_CNTNT": "행사 내용",
    "FR_GRADE_EVENT_YN": "4학년 행사 여부", "FIV_GRADE_EVENT_YN": "5학년 행사 여부",
    "SIX_GRADE_EVENT_YN": "6학년 행사 여부", "TW_GRADE_EVENT_YN": "2학년 행사 여부",
    # Seoul
    "STATION_NM": "역명", "STATION_CD": "역코드", "STATION_NM_CHN": "역명(중국어)", "STATION_NM_JPN": "역명(일본어)",
    "LINE_NUM": "호선", "FR_CODE": "외부코드", "BRANCH_LINE": "지선", "DESTSTATION": "종착역 코드",
    "ORIGINSTATION": "출발역 코드", "EXPRESS_YN": "급행 여부", "FL_FLAG": "플래그", "INOUT_TAG": "상하행 구분",
    "WEEK_TAG": "요일 구분", "bstatnId": "종착역 ID", "btrainSttus": "열차 종류", "lstcarAt": "막차 여부",
    "ordkey": "도착예정 순번", "statnFid": "이전역 ID", "statnTid": "다음역 ID", "statnId": "역 ID",
    "statnList": "연계 역 ID 목록", "subwayList": "연계 호선 ID 목록", "subwayNm": "호선명", "trnsitCo": "환승 노선 수",
    # vworld
    "crs": "좌표계", "detail": "상세 주소", "level0": "국가", "level3": "읍면동",
    # law.go.kr (the names are Korean already; these read better in a sentence)
    "법령명_한글": "법령명", "법령명한글": "법령명", "법령ID": "법령 ID", "조문가지번호": "조문 가지번호",
    "공동부령정보": "공동부령 정보", "판례정보일련번호": "판례 일련번호", "항": "항 내용", "선고": "선고 구분",
}

# (tool, field) -> name, where a field means something narrower than its name says
TOOL_FIELD_KO: dict[tuple[str, str], str] = {
    ("tourapi_searchFestival2", "title"): "행사명",
    ("tourapi_areaCode2", "name"): "지역명",
    ("airkorea_getMsrstnList", "addr"): "측정소 주소",
    ("airkorea_getNearbyMsrstnList", "addr"): "측정소 주소",
    ("vworld_getAddress", "type"): "주소 유형",
}

# tool -> what a person calls the information (a tool title names an API, not a need)
TOPIC_KO: dict[str, str] = {
    "assembly_nwvrqwxyaytdsfvhu": "국회의원 정보",
    "assembly_nzmimeepazxkubdpn": "의원 발의 법률안",
    "assembly_ncocpgfiaoituanbr": "의안별 표결 결과",
    "assembly_nojepdqqaweusdfbi": "의원별 본회의 표결",
    "airkorea_getTMStdrCrdnt": "동네 좌표",
    "airkorea_getNearbyMsrstnList": "가까운 측정소",
    "airkorea_getMsrstnList": "대기 측정소",
    "airkorea_getMsrstnAcctoRltmMesureDnsty": "측정소 대기오염 측정값",
    "airkorea_getCtprvnRltmMesureDnsty": "시도 대기오염 측정값",
    "fsc_getStockPriceInfo": "주식 시세",
    "fsc_getItemInfo": "상장 종목 정보",
    "hira_getParmacyBasisList": "약국 정보",
    "kasi_getRestDeInfo": "공휴일",
    "kasi_getHoliDeInfo": "국경일",
    "kasi_getAnniversaryInfo": "기념일",
    "kasi_get24DivisionsInfo": "절기",
    "kma_getUltraSrtNcst": "현재 날씨",
    "kma_getUltraSrtFcst": "초단기 예보",
    "kma_getVilageFcst": "단기 예보",
    "mois_getStanReginCdList": "법정동코드",
    "molit_getRTMSDataSvcAptTrade": "아파트 매매 실거래가",
    "molit_getRTMSDataSvcAptRent": "아파트 전월세 실거래가",
    "molit_getRTMSDataSvcAptTradeDev": "아파트 매매 실거래가 상세",
    "molit_getRTMSDataSvcOffiTrade": "오피스텔 매매 실거래가",
    "molit_getRTMSDataSvcOffiRent": "오피스텔 전월세 실거래가",
    "molit_getRTMSDataSvcRHTrade": "연립다세대 매매 실거래가",
    "tago_getCtyCodeList": "버스 도시코드",
    "tago_getSttnNoList": "버스 정류소",
    "tago_getCrdntPrxmtSttnList": "근처 버스 정류소",
    "tago_getSttnAcctoArvlPrearngeInfoList": "버스 도착 예정 정보",
    "tago_getRouteNoList": "버스 노선",
    "tago_getRouteAcctoThrghSttnList": "노선 경유 정류소",
    "tourapi_areaCode2": "관광 지역코드",
    "tourapi_areaBasedList2": "지역 관광정보",
    "tourapi_searchKeyword2": "관광정보 검색 결과",
    "tourapi_locationBasedList2": "주변 관광정보",
    "tourapi_searchFestival2": "축제·행사",
    "tourapi_detailCommon2": "관광지 상세정보",
    "tourapi_detailIntro2": "관광지 소개정보",
    "ecos_StatisticTableList": "한국은행 통계표",
    "ecos_StatisticItemList": "통계 세부항목",
    "ecos_StatisticSearch": "한국은행 통계 값",
    "ecos_KeyStatisticList": "100대 통계지표",
    "juso_addrLinkApi": "도로명주소",
    "juso_addrCoordApi": "건물 출입구 좌표",
    "kosis_statisticsParameterData": "인구 통계",
    "law_lawSearch": "법령 목록",
    "law_precSearch": "판례 목록",
    "law_lawService": "법령 조문",
    "law_precService": "판례 본문",
    "neis_schoolInfo": "학교 기본정보",
    "neis_mealServiceDietInfo": "급식 식단",
    "neis_SchoolSchedule": "학사일정",
    "neis_classInfo": "학급 정보",
    "neis_elsTimetable": "초등학교 시간표",
    "neis_misTimetable": "중학교 시간표",
    "neis_hisTimetable": "고등학교 시간표",
    "neis_spsTimetable": "특수학교 시간표",
    "nts_status": "사업자등록 상태",
    "seoul_SearchInfoBySubwayNameService": "지하철역 정보",
    "seoul_SearchSTNTimeTableByIDService": "지하철 열차 시간표",
    "seoul_bikeList": "따릉이 대여소 현황",
    "seoul_subway_realtimeStationArrival": "지하철 실시간 도착정보",
    "vworld_getcoord": "주소 좌표",
    "vworld_getAddress": "좌표의 주소",
}
