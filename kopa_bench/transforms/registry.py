"""The transform registry: one named, documented function per value conversion."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The value kinds a transform declares for its input and output.
KINDS = frozenset(
    {"any", "text", "code", "number", "date", "datetime", "latlon", "xy", "pair", "list", "dict"}
)


@dataclass(frozen=True)
class Transform:
    """One named transform (``name`` e.g. ``"lawd_cd"``): ``func(value, **params)`` from a value of
    ``input_kind`` to one of ``output_kind`` (both in :data:`KINDS`); ``description`` is one line
    for humans and LLM-facing tool docs; ``params`` the keyword arguments ``apply_transform`` allows."""

    name: str
    description: str
    input_kind: str
    output_kind: str
    func: Callable[..., Any] = field(repr=False)
    params: tuple[str, ...] = ()

    def __call__(self, value: Any, **kwargs: Any) -> Any:
        return self.func(value, **kwargs)


TRANSFORMS: dict[str, Transform] = {}


def _register(
    name: str,
    description: str,
    input_kind: str,
    output_kind: str,
    params: tuple[str, ...] = (),
    defaults: Mapping[str, Any] | None = None,
):
    """Decorator adding ``func`` to :data:`TRANSFORMS` (``defaults`` makes preset variants)."""
    assert input_kind in KINDS and output_kind in KINDS, (name, input_kind, output_kind)

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        if name in TRANSFORMS:
            raise RuntimeError(f"transform {name!r} registered twice")
        impl = func
        if defaults:
            fixed = dict(defaults)

            def impl(value: Any, **kwargs: Any) -> Any:  # noqa: ANN202 - tiny closure
                return func(value, **{**fixed, **kwargs})

        TRANSFORMS[name] = Transform(name, description, input_kind, output_kind, impl, params)
        return func

    return deco


def transform_names() -> list[str]:
    """Sorted names of all registered transforms."""
    return sorted(TRANSFORMS)


def apply_transform(name: str, value: Any, **kwargs: Any) -> Any:
    """Apply the transform ``name`` (a key of :data:`TRANSFORMS`) to ``value`` with its parameters.

    An unknown name is a KeyError listing the valid ones, an unknown parameter a TypeError, and a
    value the transform cannot handle a ValueError saying why.
    """
    try:
        t = TRANSFORMS[name]
    except KeyError:
        raise KeyError(f"unknown transform {name!r}; valid names: {', '.join(transform_names())}") from None
    unknown = sorted(set(kwargs) - set(t.params))
    if unknown:
        raise TypeError(
            f"transform {name!r} got unexpected argument(s) {unknown}; "
            f"it accepts {list(t.params) or 'no arguments'}"
        )
    return t.func(value, **kwargs)
