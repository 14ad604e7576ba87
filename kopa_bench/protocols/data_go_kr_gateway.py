"""The data.go.kr gateway in front of every service, whatever envelope the service uses: key
and quota problems answered as XML `OpenAPI_ServiceResponse`, even when JSON was asked for."""

from __future__ import annotations

from starlette.responses import Response

from .base import XML_CT

GATEWAY_MSGS = {
    "12": "NO_OPENAPI_SERVICE_ERROR",
    "20": "SERVICE_ACCESS_DENIED_ERROR",
    "22": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR",
    "23": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR",
    "30": "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
    "31": "DEADLINE_HAS_EXPIRED_ERROR",
    "32": "UNREGISTERED_IP_ERROR",
}


def gateway_error_xml(code: str) -> Response:
    msg = GATEWAY_MSGS.get(code, "SERVICE ERROR")
    body = (
        "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg>"
        f"<returnAuthMsg>{msg}</returnAuthMsg><returnReasonCode>{code}</returnReasonCode>"
        "</cmmMsgHeader></OpenAPI_ServiceResponse>"
    )
    return Response(body, media_type=None, headers={"Content-Type": XML_CT})
