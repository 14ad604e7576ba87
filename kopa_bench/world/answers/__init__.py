"""World answers computed per request, one module per platform: the catalog operations whose
spec names a `handler` instead of SQL. Each handler is `fn(world, params) -> rows`.

Specs name handlers by the short names of HANDLERS (`handler: neis.meals`). LAZY_TABLES are the
entity tables whose rows for a key are generated per request where the world file does not store
that key (`fn(world, key) -> pyarrow.Table | None`, None: the stored rows answer); specs name
them in `lazy_tables` and read them with ordinary SQL (world/lazy_sql.py). Nothing the build
runs uses them, so neither the world file nor its cache key depends on this package."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import ecos_history, fsc_history, juso, kasi_history, kma, kosis, neis, neis_timetable, rtms_history, seoul, tago, tourapi, vworld

Handler = Callable[..., Sequence[dict]]

HANDLERS: dict[str, Handler] = {
    "juso.search": juso.search_rows,
    "kma.ultra_srt_ncst": kma.get_ultra_srt_ncst,
    "kma.ultra_srt_fcst": kma.get_ultra_srt_fcst,
    "kma.vilage_fcst": kma.get_vilage_fcst,
    "kosis.data": kosis.data_rows,
    "neis.meals": neis.meals,
    "neis.school_schedule": neis.school_schedule,
    "neis.class_info": neis.class_info,
    "neis.els_timetable": neis_timetable.els_timetable,
    "neis.mis_timetable": neis_timetable.mis_timetable,
    "neis.his_timetable": neis_timetable.his_timetable,
    "neis.sps_timetable": neis_timetable.sps_timetable,
    "seoul.station_timetable": seoul.station_timetable,
    "seoul.realtime_arrivals": seoul.realtime_arrivals,
    "tago.arrivals": tago.arrivals,
    "tourapi.detail_intro": tourapi.detail_intro,
    "vworld.geocode": vworld.geocode_rows,
}


def handler(name: str) -> Handler:
    """The answer function a spec's `handler:` names."""
    try:
        return HANDLERS[name]
    except KeyError:
        raise KeyError(f"unknown world handler {name!r}; valid handlers: {', '.join(sorted(HANDLERS))}") from None


LazyTable = Callable[..., object]

LAZY_TABLES: dict[str, LazyTable] = {
    "ecos_data": ecos_history.base_rate_rows,
    "fsc_stock_prices": fsc_history.stock_prices,
    "kasi_special_days": kasi_history.special_days,
    "kasi_24divisions": kasi_history.divisions,
    "molit_apt_trade": rtms_history.apt_trade,
    "molit_apt_rent": rtms_history.apt_rent,
    "molit_offi_trade": rtms_history.offi_trade,
    "molit_offi_rent": rtms_history.offi_rent,
    "molit_rh_trade": rtms_history.rh_trade,
}


def lazy_table(name: str) -> LazyTable:
    """The generator of a lazily generated entity table a spec's `lazy_tables` names."""
    try:
        return LAZY_TABLES[name]
    except KeyError:
        raise KeyError(f"unknown lazy table {name!r}; valid: {', '.join(sorted(LAZY_TABLES))}") from None
