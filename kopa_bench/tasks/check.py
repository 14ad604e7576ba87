"""`kopa bench check-data`: validate every task of a split (or file) and list each problem.

Checks: the schema (pydantic, per task), tools exist in the catalog, references resolve, the
gold program executes on the sandbox and every fact gets a non-empty value (a code fact read from
a field with catalog `codes` one of those codes; a list fact at least one item), the offered tools
include every gold tool and number at least MIN_TOOLS_OFFERED, ids are unique, and no two
queries are duplicates or near-duplicates (character n-gram Jaccard).

Format 2.0 constructs: a paged step's paging arguments are parameters of its operation, and on
the sandbox it needs more than one page; a for_each runs over at least one element and no two
of its elements make the same call; every
named pick finds a record (schema-level rules, such as a reference to an unknown pick name or a
stray $each, fail in the schema check with the step and field named).
"""

from __future__ import annotations

import asyncio
import json
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kopa_bench.tasks.facts import compute_answer
from kopa_bench.tasks.task_schema import MIN_TOOLS_OFFERED, Task
from kopa_bench.tasks.program import ToolExecutor, execute_program
from kopa_bench.tasks.refs import iter_refs

if TYPE_CHECKING:
    from kopa_bench.catalog.registry import Catalog
    from kopa_bench.client import KopaClient

NEAR_DUPLICATE_JACCARD = 0.8
NGRAM = 3


@dataclass
class Problem:
    task_id: str
    message: str

    def __str__(self) -> str:
        return f"{self.task_id}: {self.message}"


def ngrams(text: str, n: int = NGRAM) -> set[str]:
    s = re.sub(r"[\s\W_]+", "", unicodedata.normalize("NFKC", text).lower())
    return {s[i:i + n] for i in range(max(len(s) - n + 1, 1))}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def read_task_items(split: str | None = None, files: list[Path] | None = None) -> list[tuple[str, Any]]:
    """(source, raw task dict) for every task of a split's files or of the given files."""
    if files is None:
        root = resources.files("kopa_bench.tasks") / "data" / (split or "test")
        files = sorted((Path(str(p)) for p in root.iterdir() if p.name.endswith(".json")), key=lambda p: p.name) if root.is_dir() else []
    out = []
    for f in files:
        try:
            data = json.loads(Path(f).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            out.append((str(f), exc))
            continue
        for item in data if isinstance(data, list) else [data]:
            out.append((Path(f).name, item))
    return out


def _platform_names(catalog: Any) -> set[str]:
    """A task's `platforms` may name catalog platforms (data_go_kr) or services (airkorea)."""
    return set(catalog.platforms) | {ref.service.id for ref in catalog}


def call_option_problems(task: Task, catalog: Any) -> list[str]:
    """match_ignore / optional / alternatives name parameters the tool has, and each literal
    alternative is a value the tool accepts (references are checked when the gold runs)."""

    out = []
    for step in task.program:
        if step.tool not in catalog:
            continue
        ref = catalog.get(step.tool)
        params = {p.name for p in ref.op.params}
        for field, names in (("match_ignore", step.match_ignore), ("optional", step.optional), ("alternatives", list(step.alternatives))):
            unknown = [n for n in names if n not in params]
            if unknown:
                out.append(f"step {step.id} {field} names {unknown}, which {step.tool} does not take; valid: {sorted(params)}")
        for name, alts in step.alternatives.items():
            param = ref.op.param(name)
            for alt in alts if param is not None else ():
                if list(iter_refs(alt)) or isinstance(alt, dict):
                    continue
                try:
                    problem = param.check(param.coerce(alt))
                except ValueError as exc:
                    problem = str(exc)
                if problem:
                    out.append(f"step {step.id} alternative {name}={alt!r} would be rejected: {problem}")
    return out


def static_problems(items: list[tuple[str, Any]], catalog: Any, *, threshold: float = NEAR_DUPLICATE_JACCARD) -> tuple[list[Task], list[Problem]]:
    """Schema, catalog, offered-tool, id and duplicate checks (no execution)."""
    tasks: list[Task] = []
    problems: list[Problem] = []
    for i, (source, item) in enumerate(items):
        tid = item.get("id", f"{source}#{i}") if isinstance(item, dict) else f"{source}#{i}"
        if isinstance(item, Exception):
            problems.append(Problem(source, f"not valid JSON: {item}"))
            continue
        try:
            task = Task.model_validate(item)
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(x) for x in err["loc"]) or "task"
                problems.append(Problem(tid, f"schema ({source}): {loc}: {err['msg']}"))
            continue
        tasks.append(task)
        unknown = [t for t in dict.fromkeys(task.tools) if t not in catalog]
        if unknown:
            problems.append(Problem(task.id, f"offered tools not in the catalog: {unknown}"))
        gold_unknown = [t for t in task.gold_tools if t not in catalog]
        if gold_unknown:
            problems.append(Problem(task.id, f"gold tools not in the catalog: {gold_unknown}"))
        missing = [t for t in task.gold_tools if t not in task.tools]
        if missing:
            problems.append(Problem(task.id, f"gold tools not offered: {missing}"))
        if len(set(task.tools)) < MIN_TOOLS_OFFERED:
            problems.append(Problem(task.id, f"only {len(set(task.tools))} tools offered; need >= {MIN_TOOLS_OFFERED}"))
        problems += construct_problems(task, catalog)
        problems += [Problem(task.id, m) for m in call_option_problems(task, catalog)]
        bad_platforms = [p for p in task.platforms if p not in _platform_names(catalog)]
        if bad_platforms:
            problems.append(Problem(task.id, f"platforms {bad_platforms} are neither catalog platforms nor services"))
    ids = [t.id for t in tasks]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(Problem(dup, "duplicate task id"))
    grams = [(t, ngrams(t.query)) for t in tasks]
    for a in range(len(grams)):
        for b in range(a + 1, len(grams)):
            ta, ga = grams[a]
            tb, gb = grams[b]
            if ta.query.strip() == tb.query.strip():
                problems.append(Problem(tb.id, f"duplicate query of {ta.id}"))
            elif (j := jaccard(ga, gb)) >= threshold:
                problems.append(Problem(tb.id, f"near-duplicate query of {ta.id} (3-gram Jaccard {j:.2f} >= {threshold})"))
    return tasks, problems


def construct_problems(task: Task, catalog: Any) -> list[Problem]:
    """Static checks of the format 2.0 constructs against the catalog: a paged step's paging
    arguments must be parameters of its operation."""
    out = []
    for step in task.program:
        if step.pages is None or step.tool not in catalog:
            continue
        op = catalog.get(step.tool).op
        unknown = [p for p in step.pages.params if op.param(p) is None]
        if unknown:
            valid = sorted(p.name for p in op.params)
            out.append(Problem(task.id, f"step {step.id} pages: {unknown} are not parameters of {step.tool} (its parameters: {valid}); "
                                        f"name its page / size (or start / end row) parameters"))
    return out


def expansion_problems(task: Task, run: Any) -> list[Problem]:
    """Problems of the format 2.0 constructs that only the sandbox's answers show."""
    out = []
    for step in task.program:
        sr = run.by_id.get(step.id)
        if sr is None or sr.skipped:
            continue
        if step.for_each is not None and not sr.expansions:
            out.append(Problem(task.id, f"step {step.id} for_each: {step.for_each.of!r} gives no element on the sandbox, so the step "
                                        f"makes no call; point for_each.of at a non-empty list or loosen for_each.where"))
        if step.for_each is not None:
            seen: dict[str, str] = {}
            for e in sr.expansions:
                key = json.dumps(run.step(e).args, ensure_ascii=False, sort_keys=True, default=str)
                if key in seen:
                    out.append(Problem(task.id, f"step {step.id} for_each: {seen[key]} and {e} make the same call; an agent "
                                                f"calls it once, so iterate over distinct elements (for_each.where / limit)"))
                    break
                seen[key] = e
        if step.pages is not None and len(sr.expansions) < 2:
            out.append(Problem(task.id, f"step {step.id} pages: the sandbox answers in one page, so paging adds nothing; "
                                        f"lower the page size (args.{step.pages.size or step.pages.end}) or drop `pages`"))
        for name, record in sr.picked_by_name.items():
            if record is None:
                out.append(Problem(task.id, f"step {step.id} picks.{name} matches no record of the {len(sr.records)} on the sandbox; "
                                            f"fix its where / contains / near"))
    return out


async def gold_problems(tasks: list[Task], client: ToolExecutor, catalog: Catalog) -> list[Problem]:
    """Execute each gold program; every fact must get a non-empty value."""
    problems: list[Problem] = []
    for task in tasks:
        if any(t not in catalog for t in task.gold_tools):
            continue  # already reported
        try:
            run = await execute_program(task, client)
        except Exception as exc:
            problems.append(Problem(task.id, f"gold does not execute: {exc}"))
            continue
        problems += expansion_problems(task, run)  # the likelier cause when a fact then fails
        try:
            facts = compute_answer(task, run)
        except Exception as exc:
            problems.append(Problem(task.id, f"gold does not execute: {exc}"))
            continue
        for f in facts:
            if f.value is None or (isinstance(f.value, str) and not f.value.strip()) or f.value == []:
                problems.append(Problem(task.id, f"fact {f.id} ({f.description}) is empty on the sandbox"))
            elif f.codes and f.kind != "list" and str(f.value).strip() not in f.codes:
                problems.append(Problem(task.id, f"fact {f.id} ({f.description}): {f.value!r} is none of its field's codes "
                                                 f"{sorted(f.codes)}; check the reference or the catalog's `codes`"))
        # A fact built on a step's records needs records; one built only on its count (a
        # conditional's "is there any?") legitimately reads an empty answer.
        record_sources = {s.step for f in facts for s in f.sources if s.field not in ("total_count", "count")}
        for step in run.executed:
            if step.result is not None and step.result.ok and not step.result.records and step.step_id in record_sources:
                problems.append(Problem(task.id, f"step {step.step_id} returns no records on the sandbox"))
    return problems


def check_tasks(items: list[tuple[str, Any]], client: KopaClient | None = None, catalog: Catalog | None = None, *,
                execute: bool = True, threshold: float = NEAR_DUPLICATE_JACCARD) -> tuple[list[Task], list[Problem]]:
    """All checks; returns (valid tasks, problems). `client` defaults to an in-process sandbox."""
    from kopa_bench.catalog import get_catalog

    catalog = catalog or (client.catalog if client is not None else get_catalog())
    tasks, problems = static_problems(items, catalog, threshold=threshold)
    if execute and tasks:
        async def go():
            nonlocal client
            from kopa_bench.client import KopaClient

            own = client is None
            client = client or KopaClient("sandbox", catalog=catalog)
            try:
                return await gold_problems(tasks, client, catalog)
            finally:
                if own:
                    await client.aclose()

        problems += asyncio.run(go())
    return tasks, problems
