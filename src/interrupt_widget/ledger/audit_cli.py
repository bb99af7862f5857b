"""`python -m interrupt_widget audit write|verify`: the audit trail from the command line.

- `audit write FILE [--ledger L] [--since T] [--until T]`: the ledger's audit
  trail (`ledger.audit()`) as hash-chained JSON Lines; prints the head hash.
- `audit verify FILE [--head HASH]`: exit 0 with the number of records when
  every line fits the chain; exit 1 naming the first line changed, removed or
  reordered (and, with `--head`, a file whose last hash is not the one kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from interrupt_widget.clock import parse_iso
from interrupt_widget.ledger.audit_chain import verify_chain


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `audit` and its two commands to the command line's subcommands."""
    audit = commands.add_parser("audit", help="write or verify the ledger's audit trail")
    actions = audit.add_subparsers(dest="audit_command", required=True)
    write = actions.add_parser(
        "write", help="write the ledger's audit trail as hash-chained JSON Lines"
    )
    write.add_argument("file", type=Path)
    write.add_argument(
        "--ledger",
        help="the ledger to read (a SQLite file or a postgresql:// URL; default: the one "
        "serve and the widgets use by default)",
    )
    write.add_argument("--since", type=parse_iso, help="ISO 8601 start (inclusive)")
    write.add_argument("--until", type=parse_iso, help="ISO 8601 end (exclusive)")
    verify = actions.add_parser(
        "verify", help="check an audit trail file: exit 1 naming the first line that does not fit"
    )
    verify.add_argument("file", type=Path)
    verify.add_argument("--head", help="the hash `audit write` printed, kept apart from the file")


def run(args: argparse.Namespace) -> int:
    """Run an `audit` command; the process exit code."""
    if args.audit_command == "write":
        return _write(args)
    return _verify(args.file, args.head)


def _write(args: argparse.Namespace) -> int:
    from interrupt_widget.ledger.noting_ledger import AuditedLedger
    from interrupt_widget.ledger.opening import open_ledger

    try:
        ledger = open_ledger(args.ledger)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not isinstance(ledger, AuditedLedger):
        print(f"error: {ledger!r} keeps no audit trail", file=sys.stderr)
        return 2
    trail = ledger.audit(since=args.since, until=args.until)
    head = trail.write(args.file)
    print(f"{args.file}: {len(trail)} calls, head {head}")
    return 0


def _verify(path: Path, head: str | None) -> int:
    try:
        check = verify_chain(path, head=head)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if check.intact:
        print(f"{path}: intact, {check.records} records, head {check.head}")
        return 0
    print(f"{path}: line {check.line}: {check.problem}", file=sys.stderr)
    return 1
