"""KOPA Space entry point (Hugging Face Spaces runs this file; locally: `python space/app.py`).

All logic lives in kopa_space/ and the kopa library; building the UI happens in main(), not at
import time. Honours GRADIO_SERVER_NAME / GRADIO_SERVER_PORT like any Gradio app.
"""

from __future__ import annotations

import os


def main() -> None:
    import logging

    from kopa_bench.client.redact import install_log_redaction
    from kopa_bench.settings import get_settings
    from kopa_space import CSS, build_demo

    logging.basicConfig(level=get_settings().log_level)
    install_log_redaction()
    demo = build_demo()
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
                server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")), css=CSS)


if __name__ == "__main__":
    main()
