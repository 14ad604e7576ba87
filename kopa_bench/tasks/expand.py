"""The two steps that run as several gold calls: the elements of a for_each, the pages of a paged call.

`each_elements` lists what a for_each runs over (value, and the reference each value stands
for, so data flow is traced to the exact record); `next_page` gives the next page's arguments
or None when the last page was the final one.
"""

from __future__ import annotations

from typing import Any

from kopa_bench.tasks.picks import _matcher
from kopa_bench.tasks.refs import WILD, RefError, is_ref, parse_ref, render_path
from kopa_bench.tasks.resolve import Resolver
from kopa_bench.tasks.task_schema import ForEach, Pages

Element = tuple[Any, "str | None"]  # (value, the reference it came from, or None for a literal)


def each_elements(for_each: ForEach, resolver: Resolver, where: str = "for_each") -> list[Element]:
    """The elements a for_each runs over, after `where` and `limit`; RefError past `max`."""
    of = for_each.of
    if isinstance(of, list):
        elements = [(resolver.path(parse_ref(e)), parse_ref(e).raw) if is_ref(e) else (resolver.value(e), None) for e in of]
    else:
        ref = parse_ref(of)
        sources: list = []
        values = resolver.path(ref, sources)
        if not isinstance(values, list):
            raise RefError(f"{where}: {of!r} is {values!r}, not a list")
        tail = ref.path[2:] if ref.path[:2] == ("items", WILD) else ()
        # one source per value, in order: every record for '.items', those with the field for 'items[*].x'
        elements = [(v, f"${ref.step}.items[{src.index}]{render_path(tail)}") for v, src in zip(values, sources)]
    if for_each.where:
        wanted = {k: _matcher(v) for k, v in resolver.value(for_each.where).items()}
        odd = [v for v, _ in elements if not isinstance(v, dict)]
        if odd:
            raise RefError(f"{where}.where filters records, but {of!r} gives values such as {odd[0]!r}; drop `where` or iterate over records")
        elements = [(v, s) for v, s in elements if all(k in v and test(v[k]) for k, test in wanted.items())]
    if for_each.limit is not None:
        elements = elements[:for_each.limit]
    if len(elements) > for_each.max:
        raise RefError(f"{where}: {of!r} gives {len(elements)} elements, more than for_each.max={for_each.max}; raise max "
                       f"(at most 100), narrow it with for_each.where, or take the first ones with for_each.limit")
    return elements


def page_size(pages: Pages, args: dict[str, Any]) -> int:
    if pages.size:
        return int(args[pages.size])
    return int(args[pages.end]) - int(args[pages.start]) + 1


def next_page(pages: Pages, args: dict[str, Any], parts: list[Any]) -> dict[str, Any] | None:
    """Arguments of the page after `args`, or None when the pages so far are all there is: the
    last came back short, or the first page's total (when it counts every row) is reached."""
    size = page_size(pages, args)
    if len(parts[-1].records) < size:
        return None
    first = parts[0]
    total = first.total_count
    # some APIs count only the page's rows (Seoul's list_total_count); such a total says nothing
    if total is not None and total > len(first.records) and sum(len(p.records) for p in parts) >= total:
        return None
    out = dict(args)
    if pages.page:
        out[pages.page] = int(args.get(pages.page, 1)) + 1
    else:
        out[pages.start], out[pages.end] = int(args[pages.start]) + size, int(args[pages.end]) + size
    return out
