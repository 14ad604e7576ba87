"""Declarative catalog: a platform serves services, a service exposes operations.

Every name here is the real one (operation names, parameter names, field names, auth and
format switches), because the same spec drives three things that must agree with the real
API: the JSON-schema tool a model sees, the request the client sends (live or sandbox),
and the sandbox's replica of the endpoint.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

ParamType = Literal["string", "integer", "number"]
# How scoring compares a model's value with the gold's (kopa_bench.scoring.values):
#   code    the exact text the platform receives (IDs, codes, dates: leading zeros and case kept)
#   text    free text, normalised the way BFCL does (case, whitespace and the characters ,./-_)
#   number  numerically ("10" and 10.0 reach the platform as the same number)
#   ignore  any value is the same call (paging, format switches, client identification)
MatchKind = Literal["code", "text", "number", "ignore"]
OperationDomain = Literal[
    "traffic", "finance", "education", "law", "politics", "district",
    "weather", "air_quality", "tourism", "real_estate", "calendar", "health", "business",
]


class Param(BaseModel):
    """One request parameter of an operation, as the real API names it."""

    name: str
    type: ParamType = "string"
    required: bool = False
    desc_ko: str
    desc_en: str
    example: Any = None
    default: Any = Field(None, description="value the client sends when the model omits it")
    enum: list[str] | None = None
    enum_case_insensitive: bool = Field(
        False, description="the platform matches the enum ignoring case (dataTerm=daily); the value is read as the listed spelling")
    source: str | None = Field(None, description="where a quirk of this parameter is documented or observed")
    pattern: str | None = Field(None, description="regex a value must match (else the platform's parameter error)")
    minimum: float | None = None
    maximum: float | None = Field(None, description="hard upper bound; above it the platform errors")
    cap: int | None = Field(None, description="silent cap (the real service truncates, e.g. numOfRows)")
    location: Literal["query", "path", "body"] = "query"
    model_facing: bool = Field(True, description="False: filled by the client, hidden from models")
    match: MatchKind | None = Field(None, description="how scoring compares values (see MatchKind); None: number for integer/number parameters, else code")

    @property
    def match_kind(self) -> MatchKind:
        """`match`, or the kind the declared type implies."""
        if self.match is not None:
            return self.match
        return "number" if self.type in ("integer", "number") else "code"

    def coerce(self, value: Any) -> Any:
        """Turn a raw (string) value into the declared type; raises ValueError with the reason."""
        if value is None:
            return None
        if self.type == "integer":
            if isinstance(value, bool):
                raise ValueError(f"{self.name} must be an integer, got {value!r}")
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, int):
                return value
            text = str(value).strip()
            if not re.fullmatch(r"[+-]?\d{1,18}", text):
                raise ValueError(f"{self.name} must be an integer, got {value!r}")
            return int(text)
        if self.type == "number":
            if isinstance(value, bool):
                raise ValueError(f"{self.name} must be a number, got {value!r}")
            try:
                out = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{self.name} must be a number, got {value!r}") from None
            if out != out or out in (float("inf"), float("-inf")):
                raise ValueError(f"{self.name} must be a finite number, got {value!r}")
            return out
        if isinstance(value, (dict, list)):
            raise ValueError(f"{self.name} must be a string, got {type(value).__name__}")
        return str(value)

    def enum_spelling(self, value: Any) -> str | None:
        """The listed enum value `value` names (ignoring case where the platform does), or None."""
        if self.enum is None:
            return None
        text = str(value)
        if text in self.enum:
            return text
        if self.enum_case_insensitive:
            for option in self.enum:
                if option.casefold() == text.casefold():
                    return option
        return None

    def canonical(self, value: Any) -> Any:
        """A checked value as the platform reads it: a case-insensitive enum value in its listed spelling."""
        if self.enum_case_insensitive and isinstance(value, str):
            return self.enum_spelling(value) or value
        return value

    def check(self, value: Any) -> str | None:
        """Return a problem description for a coerced value, or None when it is acceptable."""
        if self.enum is not None and self.enum_spelling(value) is None:
            case = " (case-insensitive)" if self.enum_case_insensitive else ""
            return f"{self.name}={value!r} is not one of {self.enum}{case}"
        if self.pattern is not None and not re.fullmatch(self.pattern, str(value)):
            return f"{self.name}={value!r} does not match the format {self.pattern}"
        if self.minimum is not None and isinstance(value, (int, float)) and value < self.minimum:
            return f"{self.name}={value!r} is below the minimum {self.minimum:g}"
        if self.maximum is not None and isinstance(value, (int, float)) and value > self.maximum:
            return f"{self.name}={value!r} is above the maximum {self.maximum:g}"
        return None


class ItemField(BaseModel):
    """One field of the records an operation returns."""

    name: str
    type: str = "string"
    desc_ko: str = ""
    desc_en: str = ""
    codes: dict[str, Any] = Field(default_factory=dict, description=(
        "code -> label(s) a reader uses for it (AirKorea grade '2' -> 보통); with `codes_by`, "
        "value of that field -> such a table (KMA fcstValue by category)"))
    codes_by: str | None = Field(None, description="field of the same record that selects the code table in `codes`")

    @model_validator(mode="after")
    def _codes_shape(self) -> "ItemField":
        tables = self.codes.values() if self.codes_by else [self.codes]
        for table in tables:
            if not isinstance(table, dict):
                raise ValueError(f"field {self.name}: with codes_by={self.codes_by!r}, codes maps each "
                                 f"{self.codes_by} value to a table of code -> label; got {table!r}")
            for code, labels in table.items():
                if not labels or not all(isinstance(x, str) and x.strip() for x in _as_list(labels)):
                    raise ValueError(f"field {self.name}: code {code!r} needs a label or a list of labels, got {labels!r}")
        return self

    def code_table(self, record: dict[str, Any] | None = None) -> dict[str, list[str]]:
        """code -> labels for this field (of `record`, when the table depends on another field);
        empty when the field has no codes."""
        table = self.codes
        if self.codes_by:
            table = self.codes.get(str((record or {}).get(self.codes_by, "")).strip(), {})
        return {str(code): _as_list(labels) for code, labels in table.items()}


def _as_list(labels: Any) -> list[str]:
    return list(labels) if isinstance(labels, (list, tuple)) else [labels]


class Operation(BaseModel):
    """A real API operation, plus how the sandbox world answers it."""

    name: str = Field(description="the real operation / dataset name, e.g. getMsrstnAcctoRltmMesureDnsty")
    tool: str = Field("", description="model-facing tool name; defaults to <service id>_<name>")
    title_ko: str
    title_en: str
    description_ko: str = ""
    description_en: str = ""
    domain: OperationDomain
    path: str = Field("", description="path after the service prefix, e.g. /getTMStdrCrdnt")
    method: Literal["GET", "POST"] = "GET"
    params: list[Param] = Field(default_factory=list)
    fields: list[ItemField] = Field(default_factory=list)
    query: str | None = Field(None, description="DuckDB SQL over the world with $param placeholders")
    handler: str | None = Field(None, description="name of the Python answer computing the rows (kopa_bench.world.answers.HANDLERS)")
    lazy_tables: dict[str, list[str]] = Field(
        default_factory=dict,
        description="entity tables of `query` generated per request for the keys the world file does not store "
                    "(kopa_bench.world.answers.LAZY_TABLES): table -> the parameters that key it")
    list_key: str | None = Field(None, description="envelope key holding the rows, where the protocol needs one")
    single_item_object: bool = Field(False, description="JSON quirk: one record is an object, not a list")
    extra: dict[str, Any] = Field(default_factory=dict, description="protocol-specific settings")
    quirks: list[str] = Field(default_factory=list)
    sources: dict[str, str] = Field(default_factory=dict, description="quirk or setting -> where it is documented or observed")
    # Set by the loader.
    service_id: str = ""
    platform_id: str = ""

    @model_validator(mode="after")
    def _needs_a_source(self) -> "Operation":
        if not self.query and not self.handler:
            raise ValueError(f"operation {self.name}: give either `query` (SQL) or `handler`")
        names = [p.name for p in self.params]
        if len(names) != len(set(names)):
            raise ValueError(f"operation {self.name}: duplicate parameter names {names}")
        for table, keys in self.lazy_tables.items():
            unknown = [k for k in keys if k not in names]
            if unknown or not self.query:
                raise ValueError(f"operation {self.name}: lazy table {table} needs `query` and keys among its "
                                 f"parameters {names}; got {keys}")
        return self

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def model_params(self) -> list[Param]:
        return [p for p in self.params if p.model_facing]


class Service(BaseModel):
    """A service on a platform: shares a path prefix, auth and format switches."""

    id: str = Field(description="short id used as the tool-name prefix, e.g. airkorea")
    name_ko: str
    name_en: str
    provider: str = ""
    path: str = Field("", description="path prefix on the platform host, e.g. /B552584/ArpltnInforInqireSvc")
    auth_param: str = "serviceKey"
    auth_aliases: list[str] = Field(default_factory=list, description="other spellings the real service accepts")
    format_param: str | None = None
    format_json: str = "json"
    format_default: Literal["xml", "json"] = "xml"
    json_supported: bool = True
    success_code: str = "00"
    success_msg: str = "NORMAL SERVICE."
    accept_header_json: bool = Field(
        False, description="JSON for a request whose Accept header asks for application/json and names no format")
    extra: dict[str, Any] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict, description="quirk or setting -> where it is documented or observed")
    operations: list[Operation]

    @field_validator("id")
    @classmethod
    def _id_ok(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", v):
            raise ValueError(f"service id {v!r} must be lower snake case")
        return v


class Platform(BaseModel):
    """A host-level platform (data.go.kr, NEIS, Seoul Open Data, ECOS, ...)."""

    id: str
    name_ko: str
    name_en: str
    protocol: str = Field(description="envelope family in kopa_bench.protocols")
    live_base_url: str
    sandbox_prefix: str = Field("", description="where the sandbox serves this host's paths")
    key_env: str = Field(description="environment variable holding the user's live key")
    services: list[Service]
    extra: dict[str, Any] = Field(default_factory=dict)
