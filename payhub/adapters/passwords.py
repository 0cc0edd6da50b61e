"""argon2id password hashing (argon2-cffi), RFC 9106's second recommended profile.

The stored string carries the algorithm, version, parameters and salt, so raising the
parameters later rehashes each password at its owner's next sign-in (``needs_rehash``).
"""

from __future__ import annotations

from argon2 import PasswordHasher as _Argon2
from argon2 import Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError


class Argon2Passwords:
    def __init__(self, time_cost: int = 3, memory_cost: int = 65536, parallelism: int = 4) -> None:
        self._argon2 = _Argon2(
            time_cost=time_cost,
            memory_cost=memory_cost,
            parallelism=parallelism,
            hash_len=32,
            salt_len=16,
            type=Type.ID,
        )

    def hash(self, password: str) -> str:
        return self._argon2.hash(password)

    def verify(self, stored: str, password: str) -> bool:
        try:
            return self._argon2.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        try:
            return self._argon2.check_needs_rehash(stored)
        except InvalidHashError:
            return True
