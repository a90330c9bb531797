"""``dpaudit certify``: run a subject's certify chain.  The options shown and parsed are the
chosen subject's (``--subject`` is read from the command line before the parser is built);
the subject's own command does the work."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from audit import registry
from audit.cli.command import Command

__all__ = ["CertifyCommand", "certify_command", "certify_subjects"]


def certify_subjects() -> list[registry.Subject]:
    """The installed subjects that offer a certify chain, the default one first."""
    subs = [s for s in registry.subjects().values() if s.certify]
    return sorted(subs, key=lambda s: (not s.default, s.name))


class CertifyCommand(Command):
    """``certify`` for the chosen subject: ``--subject`` and then the subject command's
    own options; running it runs the subject's command."""

    def __init__(self, chosen: Any, names: list[str], default: str) -> None:
        self.chosen = chosen
        self.names = names
        self.default = default
        self.help = chosen.help
        self.description = getattr(chosen, "description", None)
        others = [n for n in names if n != default]
        self.usage = (
            f"dpaudit certify [-h] [--subject NAME] [OPTIONS of NAME's chain]\n  (options "
            f"below: --subject {default}"
            + (f"; see 'dpaudit certify --subject {others[0]} --help'" if others else "")
            + f"; NAME in: {', '.join(names)})")

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--subject", choices=self.names, default=self.default,
                       help="whose certify chain to run (default %(default)s)")
        self.chosen.add_arguments(p)
        p.add_argument("--public-verdict-only", action="store_true",
                       help="the public report (and stdout) keep only the overall verdict: "
                       "the per-link verdicts, reasons and counterexample path go to the "
                       "confidential report (the per-link verdict vector is otherwise "
                       "public, see the report's residual)")

    def run(self, args: argparse.Namespace) -> int:
        return self.chosen.run(args)


def certify_command(argv: Sequence[str]) -> CertifyCommand | None:
    """The ``certify`` command for the subject named by ``--subject`` in ``argv`` (default:
    the default subject); None when no installed subject offers a certify chain, or the
    chosen one's command cannot be loaded."""
    subs = certify_subjects()
    if not subs:
        return None
    names = [s.name for s in subs]
    chosen = subs[0]
    argv = list(argv)
    for i, tok in enumerate(argv):
        val = None
        if tok == "--subject" and i + 1 < len(argv):
            val = argv[i + 1]
        elif tok.startswith("--subject="):
            val = tok.split("=", 1)[1]
        if val is not None:
            chosen = next((s for s in subs if s.name == val), chosen)
    ref = chosen.certify
    assert ref is not None  # certify_subjects() keeps subjects with a certify chain only
    try:
        cmd = registry.resolve(ref)
    except registry.SubjectLoadError:
        return None
    return CertifyCommand(cmd, names, chosen.name)
