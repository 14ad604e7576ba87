"""Plain-language explanations (Korean + English) for everything that can go wrong in the Space.

The UI never shows a stack trace: `explain(exc)` turns an exception into two sentences a
visitor can act on, and `explain_tool_error(result)` does the same for a failed API call.
Messages pass through `redact` so a key typed into the form can never come back out.
"""

from __future__ import annotations

import logging

from kopa_bench.client.redact import redact

from .icons import WARN

log = logging.getLogger(__name__)

# ToolErrorInfo.type -> (ko, en)
TOOL_ERRORS: dict[str, tuple[str, str]] = {
    "argument": ("인자가 도구 설명과 맞지 않습니다 (빠졌거나 형식이 다름).",
                 "The arguments do not fit the tool (missing or wrong type)."),
    "unknown_tool": ("제공되지 않은 도구 이름을 불렀습니다.", "The model named a tool that is not offered."),
    "parse": ("모델이 쓴 도구 호출을 해석할 수 없습니다.", "The model's tool call could not be parsed."),
    "auth": ("서비스 키가 없거나 등록되지 않았습니다 (data.go.kr 코드 20/30/31/32). 키를 확인하세요.",
             "The service key is missing or not registered (data.go.kr codes 20/30/31/32). Check the key."),
    "quota": ("요청 한도를 넘었습니다 (data.go.kr 코드 22/23). 잠시 후 다시 시도하세요.",
              "The request quota is exhausted (data.go.kr codes 22/23). Try again later."),
    "no_service": ("해당 오퍼레이션이 없거나 폐지되었습니다 (코드 12).", "The operation does not exist or was retired (code 12)."),
    "transient": ("일시적인 오류입니다 (시간 초과, 5xx). 다시 시도하면 될 수 있습니다.",
                  "A temporary failure (time-out, 5xx); retrying may work."),
    "platform": ("API가 오류 코드를 돌려주었습니다 (예: 10 잘못된 파라미터, 11 필수 파라미터 누락).",
                 "The API returned an error code (e.g. 10 invalid parameter, 11 missing mandatory parameter)."),
}


class UserFacingError(Exception):
    """An error whose message is already fit to show (Korean / English)."""


def _both(ko: str, en: str, detail: str = "") -> str:
    text = f"**{ko}**\n\n{en}"
    if detail:
        text += f"\n\n<sub>{redact(detail)[:400]}</sub>"
    return text


def explain(exc: BaseException, *, context: str = "") -> str:
    """Markdown for the user; the full traceback goes to the server log only (redacted)."""
    log.warning("space error (%s): %s", context, redact(f"{type(exc).__name__}: {exc}"))
    name = type(exc).__name__
    msg = str(exc)
    if isinstance(exc, UserFacingError):
        return msg
    if name in ("ConnectError", "ConnectTimeout", "ReadTimeout", "TimeoutException") or "Connection refused" in msg:
        return _both("모델 엔드포인트에 연결할 수 없습니다. 주소(http://host:port/v1)와 서버 실행 여부를 확인하세요.",
                     "Cannot reach the model endpoint. Check the URL (http://host:port/v1) and that the server is running.", msg)
    if name == "BackendError":
        return _both("모델 서버가 요청을 거절했거나 응답하지 않았습니다.", "The model server rejected the request or did not answer.", msg)
    if name in ("ModelPartsMissing", "ModelHashMismatch") or (name == "ModuleNotFoundError" and context == "model"):
        return _both("내장 소형 모델을 불러오지 못했습니다 (패키지가 없거나 손상됨).",
                     "The bundled small model could not be loaded (packages missing or corrupt).", msg)
    if name in ("OSError", "FileNotFoundError", "RepositoryNotFoundError", "HFValidationError") and context == "model":
        return _both("모델을 찾을 수 없습니다. 로컬 체크포인트 폴더 경로나 Hub id를 확인하세요.",
                     "Model not found. Check the local checkpoint folder or the Hub id.", msg)
    if name == "ValueError" and "backend spec" in msg:
        return _both("모델 지정 형식이 올바르지 않습니다.", "The model spec is not valid.", msg)
    if name in ("TaskFileError", "ProgramError", "FactError"):
        return _both("정답 프로그램을 실행할 수 없어 채점하지 못했습니다 (API 호출 실패 또는 과제 데이터 문제).",
                     "The task's gold program could not run, so the episode is not scored (an API call failed or the task data is wrong).", msg)
    if name == "CancelledError":
        return _both("실행이 취소되었습니다.", "The run was cancelled.")
    if context == "model":
        return _both("모델을 불러오거나 실행하는 중 오류가 났습니다.", "The model failed to load or run.", f"{name}: {msg}")
    return _both("처리 중 오류가 발생했습니다.", "Something went wrong.", f"{name}: {msg}")


def explain_runner_errors(errors: list[str]) -> str:
    """Plain words for Episode.errors when the model backend stopped the episode."""
    text = "; ".join(errors)
    if "ConnectError" in text or "Connection refused" in text or "ConnectTimeout" in text:
        return _both("모델 엔드포인트에 연결할 수 없습니다. 주소(http://host:port/v1)와 서버 실행 여부를 확인하세요.",
                     "Cannot reach the model endpoint. Check the URL (http://host:port/v1) and that the server is running.", text)
    if "BackendError" in text:
        return _both("모델 서버가 요청을 거절했거나 응답하지 않았습니다.", "The model server rejected the request or did not answer.", text)
    return _both("모델이 실행 중에 실패했습니다.", "The model failed during the run.", text)


def explain_tool_error(result) -> str:
    """One line for a failed ToolResult: what the code means, then the client's own message."""
    err = result.error
    if err is None:
        return ""
    ko, en = TOOL_ERRORS.get(err.type, ("오류", "Error"))
    code = f" (code {err.code})" if err.code else ""
    return f"{WARN} {ko} / {en}{code}\n\n`{redact(err.message)[:300]}`"
