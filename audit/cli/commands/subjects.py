"""``dpaudit subjects``: list the installed subjects (entry-point group
``dpaudit.subjects``), what each offers, and any that failed to load.  Command module: it
prints."""

from __future__ import annotations

import argparse
import sys

from audit import registry
from audit.cli.command import Command
from audit.cli.outcomes import outcome

__all__ = ["COMMAND", "SubjectsCommand"]


class SubjectsCommand(Command):
    help = "list the installed subjects (papers, mechanism families) and what they check"
    description = ("List every subject found through the entry-point group "
                   "'dpaudit.subjects': name, paper, number of prove / search claims, "
                   "mechanisms, and any subject that failed to load (with its package).")

    def run(self, a: argparse.Namespace) -> int:
        subs = registry.subjects()
        registry.load_all()
        errors = registry.subject_errors()
        w = sys.stdout.write
        for name, s in subs.items():
            n = {c: sum(1 for k in registry.CLAIMS if k.paper == name and k.command == c)
                 for c in ("prove", "search", "reproduce")}
            w(f"{name}\n  paper       {s.paper}\n  package     {s.package or '-'}\n")
            w(f"  claims      prove {n['prove']}, search {n['search']}, reproduce "
              f"{n['reproduce']}\n")
            extras = [x for x, v in (("regress", s.regress), ("certify", s.certify)) if v]
            extras += sorted(s.commands)
            w(f"  commands    {', '.join(extras) or '-'}\n")
            if s.mechanisms:
                try:
                    mechs = registry.resolve(s.mechanisms)()
                    w(f"  mechanisms  {len(mechs)}: {', '.join(list(mechs)[:6])}"
                      f"{' ...' if len(mechs) > 6 else ''}\n")
                except registry.SubjectLoadError as exc:
                    errors.setdefault(name, str(exc))
            if name in errors:
                w(f"  ERROR       {errors[name]}\n")
        for name, msg in errors.items():
            if name not in subs:
                w(f"{name}\n  ERROR       {msg}\n")
        return outcome("subject-error" if errors else "listed").code


COMMAND = SubjectsCommand()
