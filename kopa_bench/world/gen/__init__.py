"""World generators: one module per data family; each exposes `generate(ctx) -> {table: rows}`
and may declare `DEPENDS = ["regions", ...]` to read tables made by others."""
