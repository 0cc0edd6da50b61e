"""Secrets at rest: Fernet (AES-128-CBC + HMAC-SHA256) from ``cryptography``.

The master key comes from ``PAYHUB_SECRET_KEY`` or a key file. Several keys may be
given, newest first, separated by commas: new secrets are sealed with the first and
old ones still open (``MultiFernet``), which is how the key is rotated. The API-key
digest key is derived from the first key with HKDF, so one secret configures both.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


class SecretKeyError(RuntimeError):
    """The configured master key is missing or malformed."""


class FernetSecretBox:
    def __init__(self, keys: list[str]) -> None:
        if not keys:
            raise SecretKeyError("no secret key configured")
        try:
            fernets = [Fernet(k.strip().encode("ascii")) for k in keys]
        except (ValueError, TypeError) as e:
            raise SecretKeyError(
                "the secret key is not a valid Fernet key (32 url-safe base64 bytes)"
            ) from e
        self._box = MultiFernet(fernets)
        self._digest_key = HKDF(
            algorithm=hashes.SHA256(), length=32, salt=None, info=b"payhub api-key digests"
        ).derive(keys[0].strip().encode("ascii"))

    def seal(self, plaintext: bytes) -> bytes:
        return self._box.encrypt(plaintext)

    def open(self, sealed: bytes) -> bytes:
        try:
            return self._box.decrypt(sealed)
        except InvalidToken as e:
            raise SecretKeyError("a stored secret cannot be opened with the configured key") from e

    @property
    def digest_key(self) -> bytes:
        return self._digest_key


def fingerprint(key: str) -> str:
    """A short, one-way name for a key (HKDF), safe to store and print; not the key."""
    derived = HKDF(
        algorithm=hashes.SHA256(), length=8, salt=None, info=b"payhub master-key fingerprint"
    ).derive(key.strip().encode("ascii"))
    return derived.hex()


def load_or_create_keys(key_file: Path, env_value: str | None) -> tuple[list[str], bool]:
    """The master keys from the environment, else the key file, creating it (0600) if absent.

    Returns the keys and whether the file was just created.
    """
    if env_value:
        return [k for k in env_value.split(",") if k.strip()], False
    if key_file.exists():
        return [k for k in key_file.read_text().strip().split(",") if k.strip()], False
    key_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use theirs
        return load_or_create_keys(key_file, None)
    with os.fdopen(fd, "w") as fh:
        fh.write(Fernet.generate_key().decode("ascii") + "\n")
    return load_or_create_keys(key_file, None)[0], True
