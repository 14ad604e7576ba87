"""Builders of the published dataset folders (Parquet + card), and their publisher."""
