"""The payload each fault kind produces, in the platform's own words where it has them."""

from __future__ import annotations

import asyncio

from starlette.responses import Response, StreamingResponse


def _platform_code_error(kind: str, ref) -> Response:
    proto = ref.platform.protocol
    if proto in {"data_go_kr", "stanregincd"}:
        from ..protocols.data_go_kr_gateway import gateway_error_xml

        return gateway_error_xml({"quota": "22", "per_second": "23", "key": "30"}[kind])
    # Other platforms: their own quota/key codes when the protocol module defines them.
    from ..protocols import get_protocol

    module = get_protocol(proto)
    fn = getattr(module, "fault_response", None)
    if fn is not None:
        return fn(kind, ref)
    return Response("Too Many Requests", status_code=429)


def response_for(kind: str, ref, config) -> Response:
    if kind in {"quota", "per_second", "key"}:
        return _platform_code_error(kind, ref)
    if kind == "server_error":
        return Response("<html><body>502 Bad Gateway</body></html>", status_code=502, media_type="text/html")
    if kind == "truncated":
        return Response('{"response":{"header":{"resultCode":"00","resultMsg":"NORMAL SERVICE."},"body":{"items":[{"stat',
                        headers={"Content-Type": "application/json;charset=UTF-8"})
    if kind == "malformed":
        return Response("<html><head><title>Error</title></head><body>Unexpected errors", media_type="text/html")

    async def stall(seconds: float, then: bytes):
        await asyncio.sleep(seconds)
        yield then

    if kind == "timeout":
        return StreamingResponse(stall(config.timeout_s, b""), status_code=504)
    # slow: answer correctly but late -> the caller marks it and passes through
    return None
