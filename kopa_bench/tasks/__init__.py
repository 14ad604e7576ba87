"""Tasks: the Task model, task files, the gold program executor and the answer spec."""

from kopa_bench.tasks.facts import FactError, ResolvedFact, compute_answer
from kopa_bench.tasks.task_schema import Condition, Fact, Pick, Step, Task, TaskFileError, load_tasks, parse_tasks
from kopa_bench.tasks.program import Edge, GoldRun, ProgramError, StepRun, execute_program, execute_program_sync

__all__ = [
    "Condition", "Edge", "Fact", "FactError", "GoldRun", "Pick", "ProgramError", "ResolvedFact", "Step",
    "StepRun", "Task", "TaskFileError", "compute_answer", "execute_program", "execute_program_sync",
    "load_tasks", "parse_tasks",
]
