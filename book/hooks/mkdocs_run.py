"""For the hooks' tests: build a small book with mkdocs in this process (a fresh `mkdocs` process
per build would cost a second or two of start-up each).

    ok, log = build(Path("book/mkdocs.yml"), Path("site"))

ok is False when the build stopped (an error, or a warning under --strict); log holds what mkdocs
logged at WARNING and above, errors included, one message per line.
"""

from __future__ import annotations

import logging
from pathlib import Path


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def build(config_file: Path, site: Path) -> tuple[bool, str]:
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    logger = logging.getLogger("mkdocs")
    collect = _Collect()
    logger.addHandler(collect)
    propagate, logger.propagate = logger.propagate, False  # keep the test output quiet
    try:
        config = load_config(config_file=str(config_file), site_dir=str(site), strict=True)
        mkdocs_build(config)
        ok = True
    except Exception as error:  # a hook's PluginError, mkdocs' Abort, a config error, ...
        collect.messages.append(str(error))
        ok = False
    finally:
        logger.removeHandler(collect)
        logger.propagate = propagate
    return ok, "\n".join(collect.messages)
