from kopa_bench.cli import app

app()
