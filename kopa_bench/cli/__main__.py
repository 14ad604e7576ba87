from kopa_bench.cli import app

app(prog_name="kopa")
