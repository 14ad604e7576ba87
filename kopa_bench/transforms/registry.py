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
    """One named transform.

    Attributes:
        name: Registry key, e.g. ``"lawd_cd"``.
        description: One line for humans and for LLM-facing tool docs.
        input_kind: Kind of the value it takes (one of :data:`KINDS`).
        output_kind: Kind of what it returns.
        func: ``func(value, **params)``.
        params: Names of the keyword arguments it accepts (``apply_transform`` checks them).
    """

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
    """Apply the transform called ``name`` to ``value``.

    Args:
        name: A key of :data:`TRANSFORMS`.
        value: The input value (usually a string taken from an API record).
        **kwargs: The transform's parameters (see ``TRANSFORMS[name].params``).

    Returns:
        The transformed value.

    Raises:
        KeyError: If ``name`` is unknown; the message lists the valid names.
        TypeError: If a keyword argument is not one of the transform's parameters.
        ValueError: If the value cannot be transformed (the message says why).
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

