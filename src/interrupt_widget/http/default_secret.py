"""The fingerprint secret `serve` keeps when none is given, so open interrupts survive a restart.

Without `--secret-file` or `INTERRUPT_WIDGET_SECRET`, `serve` used to make a
new secret at each start, and every interrupt open at a restart was refused.
Now the first start makes one and keeps it in the per-user state folder,
beside the default ledger (`$XDG_STATE_HOME/interrupt-widget/secret`, else
`~/.local/state/interrupt-widget/secret`), readable by its owner alone (mode
0600, in a 0700 folder); every later start of that user reads it back. Two
servers starting at once agree on one: the file appears whole or not at all
(written aside, then linked into place, which fails if another came first).

A secret kept this way is as safe as the user's account on this host. Give
replicas on several hosts one secret explicitly (`--secret-file`): each host
would otherwise keep its own, and a call interrupted on one is refused on the
others with `fingerprint_other_secret`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

from interrupt_widget.errors import FingerprintSecretError
from interrupt_widget.http.fingerprint import Fingerprinter, random_secret
from interrupt_widget.ledger.opening import default_ledger_path

logger = logging.getLogger(__name__)

__all__ = ["kept_secret", "kept_secret_path"]


def kept_secret_path() -> Path:
    """Where the kept secret lives: beside the default ledger file."""
    return default_ledger_path().parent / "secret"


def kept_secret(path: Path | None = None) -> str:
    """The kept secret, made and stored on first use (see the module docs).

    Raises `FingerprintSecretError` when the file cannot be made or read, or
    holds something that is not a usable secret.
    """
    target = path or kept_secret_path()
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not target.exists():
            _make(target)
        secret = _read(target)
    except OSError as exc:
        raise FingerprintSecretError(
            f"cannot keep the fingerprint secret in {target}: {exc}; give one with "
            "--secret-file or INTERRUPT_WIDGET_SECRET"
        ) from exc
    try:
        Fingerprinter(secret)
    except FingerprintSecretError as exc:
        raise FingerprintSecretError(f"the kept secret in {target} is unusable: {exc}") from None
    return secret


def _make(target: Path) -> None:
    aside = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(random_secret() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another server made it first: theirs
            os.link(aside, target)
            logger.warning(
                "no fingerprint secret given: made one and kept it in %s (mode 0600), so open "
                "interrupts survive a restart",
                target,
            )
    finally:
        aside.unlink(missing_ok=True)


def _read(target: Path) -> str:
    mode = stat.S_IMODE(target.stat().st_mode)
    if mode & 0o077:
        # Readable by others: whoever can read it can forge approvals' fingerprints.
        os.chmod(target, 0o600)
        logger.warning("the kept secret %s was readable by others; now mode 0600", target)
    return target.read_text(encoding="utf-8").strip()
