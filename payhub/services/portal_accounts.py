"""The admin portal's accounts: users, invites, passwords, two-factor, sessions, sign-in links.

The CLI (``payhub portal users …``), the portal's pages and the API's
``POST M/portal-sessions`` all come here. Every failure to sign in says the same thing, so
the portal tells nobody which addresses have accounts; rate limits on attempts are the
shell's (payhub_server/portal/throttle.py), counted before this is called.

Tokens handed out (session ids, invite and sign-in links, recovery codes) are random and
stored only as HMAC digests under the master key's digest key: a database dump opens no
session and spends no link.
"""

from __future__ import annotations

from datetime import datetime

import attrs
import structlog

from payhub.domain.accounts import Merchant, clean_external_reference
from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict, Forbidden, NotFound, Unauthenticated, ValidationError
from payhub.domain.messaging import OutgoingEmail, SendFailed
from payhub.domain.portal import (
    INVITE_LIFETIME,
    RECOVERY_CODES,
    SESSION_ABSOLUTE,
    SIGN_IN_LINK_LIFETIME,
    TOKEN_BYTES,
    TOUCH_EVERY,
    PortalRole,
    PortalSessionRecord,
    PortalTokenRecord,
    PortalUser,
    PortalUserRecord,
    TokenPurpose,
    check_password,
    clean_display_name,
    clean_email,
    may_manage,
    new_totp_secret,
    normal_recovery_code,
    recovery_code,
    token_digest,
    token_text,
    totp_step,
    totp_uri,
)
from payhub.ports import Mailer, PasswordHasher, UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps

log = structlog.get_logger("payhub.portal")

SIGN_IN_REFUSED = "the email address or password is not right"
# Verified when no user has the address, so a miss costs what a wrong password costs.
_DUMMY_PASSWORD = "not-anyone's-password-at-all"  # noqa: S105 (hashed once, matches nobody)


@attrs.frozen
class IssuedLink:
    """A one-time link as issued: ``url`` holds the only copy of its token."""

    user: PortalUserRecord
    url: str = attrs.field(repr=False)
    expires_at: datetime
    emailed: bool = False  # handed to a real mail server (not the outbox adapter)


@attrs.frozen
class SignedIn:
    """A new session: ``token`` goes into the cookie and nowhere else."""

    token: str = attrs.field(repr=False)
    user: PortalUser
    second_factor_due: bool
    expires_at: datetime


@attrs.frozen
class CurrentSession:
    user: PortalUser
    record: PortalSessionRecord


@attrs.frozen
class TotpSetup:
    secret: str = attrs.field(repr=False)
    uri: str = attrs.field(repr=False)


class PortalAccounts:
    def __init__(self, deps: Deps, passwords: PasswordHasher, mailer: Mailer) -> None:
        self._d = deps
        self._passwords = passwords
        self._mailer = mailer
        self._dummy_hash: str | None = None

    # --- helpers -------------------------------------------------------------------------

    @property
    def _key(self) -> bytes:
        return self._d.secrets.digest_key

    def _new_token(self) -> str:
        return token_text(self._d.randomness.token_bytes(TOKEN_BYTES))

    def _view(self, uow: UnitOfWork, user: PortalUserRecord) -> PortalUser:
        merchant = uow.merchants.get(user.merchant_id) if user.merchant_id else None
        return PortalUser(
            user_id=user.id,
            email=user.email,
            display_name=user.display_name,
            role=user.role,
            environment=user.environment,
            merchant_id=user.merchant_id,
            provider_id=user.provider_id,
            merchant_reference=merchant.external_reference if merchant else None,
            merchant_name=merchant.display_name if merchant else None,
            totp_enabled=user.totp_enabled,
        )

    @staticmethod
    def _find_user(uow: UnitOfWork, who: str) -> PortalUserRecord:
        """By id (``pus_…``) or email address."""
        user = uow.portal_users.get(who.strip())
        if user is None and "@" in who:
            try:
                user = uow.portal_users.get_by_email(clean_email(who))
            except ValidationError:
                user = None
        if user is None:
            raise NotFound(f"no portal user '{who.strip()}'")
        return user

    def _merchant_of(
        self, uow: UnitOfWork, provider_id: str | None, reference: str
    ) -> tuple[Merchant, Environment]:
        ref = clean_external_reference(reference, "merchant")
        providers = [provider_id] if provider_id else [p.id for p in uow.providers.list()]
        found = [m for pid in providers if (m := uow.merchants.get_by_reference(pid, ref))]
        if not found:
            raise NotFound(f"no merchant with externalReference '{ref}'")
        if len(found) > 1:
            raise ValidationError.for_field(
                "provider", f"several providers have a merchant '{ref}': name the provider"
            )
        provider = uow.providers.get(found[0].provider_id)
        assert provider is not None
        return found[0], provider.environment

    # --- users (the operator: CLI and operator pages) --------------------------------------

    def create_user(
        self,
        email: str,
        display_name: str,
        role: PortalRole | str,
        *,
        merchant_reference: str | None = None,
        provider_id: str | None = None,
        environment: Environment = Environment.SANDBOX,
    ) -> PortalUserRecord:
        """A merchant user (with ``merchant_reference``; owner, admin or staff) or an
        operator user (role ``operator``, in ``environment``). It has no password until its
        invite is accepted, or signs in only through a provider's sign-in link."""
        role = PortalRole.parse(role) if isinstance(role, str) else role
        email = clean_email(email)
        name = clean_display_name(display_name)
        with self._d.store.unit_of_work() as uow:
            merchant: Merchant | None = None
            if role.is_merchant_role:
                if not merchant_reference:
                    raise ValidationError.for_field("merchant", "a merchant user needs a merchant")
                merchant, environment = self._merchant_of(uow, provider_id, merchant_reference)
            elif merchant_reference:
                raise ValidationError.for_field("role", "an operator user has no merchant")
            user = PortalUserRecord(
                id=self._d.new_id("pus"),
                email=email,
                display_name=name,
                role=role,
                environment=environment,
                created_at=self._d.clock.now(),
                merchant_id=merchant.id if merchant else None,
                provider_id=merchant.provider_id if merchant else None,
            )
            uow.portal_users.add(user)
        log.info("portal user created", user_id=user.id, role=role.value)
        return user

    def list_users(
        self,
        merchant_reference: str | None = None,
        provider_id: str | None = None,
        environment: Environment | None = None,
    ) -> list[PortalUserRecord]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            if merchant_reference:
                merchant, _ = self._merchant_of(uow, provider_id, merchant_reference)
                return uow.portal_users.list(merchant_id=merchant.id)
            return uow.portal_users.list(environment=environment)

    def get_user(self, who: str) -> PortalUserRecord:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._find_user(uow, who)

    def invite(self, who: str) -> IssuedLink:
        """A signed, expiring link to set a password, emailed to the user; earlier invites of
        the user stop working. The link is returned too (the CLI prints it)."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            user = self._find_user(uow, who)
            if not user.active:
                raise Conflict("this portal user is disabled")
            link = self._issue(uow, user, TokenPurpose.INVITE, now + INVITE_LIFETIME, "invite")
            merchant = uow.merchants.get(user.merchant_id) if user.merchant_id else None
        return attrs.evolve(link, emailed=self._email_invite(link, merchant))

    def _issue(
        self,
        uow: UnitOfWork,
        user: PortalUserRecord,
        purpose: TokenPurpose,
        expires_at: datetime,
        path: str,
    ) -> IssuedLink:
        now = self._d.clock.now()
        if purpose is TokenPurpose.INVITE:
            uow.portal_tokens.revoke_for_user(user.id, purpose, now)
        token = self._new_token()
        uow.portal_tokens.add(
            PortalTokenRecord(
                digest=token_digest(self._key, purpose.value, token),
                purpose=purpose,
                user_id=user.id,
                created_at=now,
                expires_at=expires_at,
            )
        )
        return IssuedLink(user, self._d.page_url(f"/portal/{path}/{token}"), expires_at)

    def _email_invite(self, link: IssuedLink, merchant: Merchant | None) -> bool:
        where = merchant.display_name if merchant else "payhub's operator"
        body = (
            f"Hello {link.user.display_name},\n\n"
            f"You have been invited to the payhub portal of {where}"
            f" ({link.user.environment.value}). Choose your password here:\n\n{link.url}\n\n"
            f"The link works once, until {link.expires_at:%Y-%m-%d %H:%M} UTC. If you did not"
            " expect it, ignore this email.\n"
        )
        email = OutgoingEmail(self._d.new_id("msg"), link.user.email, "Your payhub portal", body)
        try:
            self._mailer.send(email)
        except SendFailed as failure:
            log.warning("portal invite not emailed", user_id=link.user.id, error=failure.detail)
            return False
        return self._mailer.name != "outbox"

    def disable(self, who: str) -> PortalUserRecord:
        """The user can no longer sign in; its sessions end now. Repeating is harmless."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            user = self._find_user(uow, who)
            if user.disabled_at is None:
                user.disabled_at = now
                uow.portal_users.save(user)
            uow.portal_sessions.delete_for_user(user.id)
            for purpose in TokenPurpose:
                uow.portal_tokens.revoke_for_user(user.id, purpose, now)
        log.info("portal user disabled", user_id=user.id)
        return user

    def enable(self, who: str) -> PortalUserRecord:
        with self._d.store.unit_of_work() as uow:
            user = self._find_user(uow, who)
            user.disabled_at = None
            uow.portal_users.save(user)
        return user

    # --- a merchant's own team (owners and admins, in the portal) --------------------------

    def team(self, actor: PortalUser) -> list[PortalUserRecord]:
        if actor.merchant_id is None:
            raise Forbidden("only a merchant's users have a team")
        with self._d.store.unit_of_work(readonly=True) as uow:
            return uow.portal_users.list(merchant_id=actor.merchant_id)

    def invite_member(
        self, actor: PortalUser, email: str, display_name: str, role: PortalRole | str
    ) -> IssuedLink:
        """An owner invites anyone to its merchant, an admin invites staff."""
        role = PortalRole.parse(role) if isinstance(role, str) else role
        if actor.merchant_id is None or not role.is_merchant_role:
            raise Forbidden("only a merchant's owners and admins invite its users")
        if not may_manage(actor.role, role):
            raise Forbidden(f"a {actor.role.value} may not invite a {role.value}")
        email = clean_email(email)
        name = clean_display_name(display_name)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            user = PortalUserRecord(
                id=self._d.new_id("pus"),
                email=email,
                display_name=name,
                role=role,
                environment=actor.environment,
                created_at=now,
                merchant_id=actor.merchant_id,
                provider_id=actor.provider_id,
            )
            uow.portal_users.add(user)
            link = self._issue(uow, user, TokenPurpose.INVITE, now + INVITE_LIFETIME, "invite")
            merchant = uow.merchants.get(actor.merchant_id)
        log.info("portal user invited", user_id=user.id, by=actor.user_id, role=role.value)
        return attrs.evolve(link, emailed=self._email_invite(link, merchant))

    def disable_member(self, actor: PortalUser, user_id: str) -> PortalUserRecord:
        with self._d.store.unit_of_work(readonly=True) as uow:
            target = uow.portal_users.get(user_id)
        if target is None or actor.merchant_id is None or target.merchant_id != actor.merchant_id:
            raise NotFound(f"no portal user '{user_id}'")
        if target.id == actor.user_id:
            raise Conflict("you cannot disable yourself")
        if not may_manage(actor.role, target.role):
            raise Forbidden(f"a {actor.role.value} may not disable a {target.role.value}")
        return self.disable(target.id)

    # --- invites and one-time links ---------------------------------------------------------

    def _token(
        self, uow: UnitOfWork, purpose: TokenPurpose, token: str, for_update: bool = False
    ) -> tuple[PortalTokenRecord, PortalUserRecord]:
        gone = NotFound("this link is not valid: it was used, has expired, or was replaced")
        if not token or len(token) > 100:
            raise gone
        record = uow.portal_tokens.get(token_digest(self._key, purpose.value, token), for_update)
        if (
            record is None
            or record.purpose is not purpose
            or not record.usable(self._d.clock.now())
        ):
            raise gone
        user = uow.portal_users.get(record.user_id)
        if user is None or not user.active:
            raise gone
        return record, user

    def invitation(self, token: str) -> PortalUser:
        """Who an invite is for (the page that sets the password shows it)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            _, user = self._token(uow, TokenPurpose.INVITE, token)
            return self._view(uow, user)

    def accept_invite(self, token: str, password: str) -> SignedIn:
        """Set the password, spend the invite, and sign in (a new session)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            _, user = self._token(uow, TokenPurpose.INVITE, token)
        check_password(password, user.email)
        hashed = self._passwords.hash(password)  # slow: outside the write transaction
        with self._d.store.unit_of_work() as uow:
            record, user = self._token(uow, TokenPurpose.INVITE, token, for_update=True)
            if not uow.portal_tokens.use(record.digest, self._d.clock.now()):
                raise NotFound("this link is not valid: it was used, has expired, or was replaced")
            user.password_hash = hashed
            uow.portal_users.save(user)
            uow.portal_sessions.delete_for_user(user.id)
            return self._open_session(uow, user, second_factor_due=user.totp_enabled)

    def create_sign_in_link(self, caller: Caller, merchant_reference: str, who: str) -> IssuedLink:
        """``POST M/portal-sessions``: a one-time link that signs the merchant's named user in
        (as its password would; a user with two-factor still enters its code)."""
        if caller.is_merchant_key:
            raise Forbidden("portal sign-in links need a provider key")
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            ref = clean_external_reference(merchant_reference, "merchant")
            merchant = uow.merchants.get_by_reference(caller.provider_id, ref)
            if merchant is None:
                raise NotFound(f"no merchant account '{ref}'")
            try:
                user = self._find_user(uow, who)
            except NotFound:
                user = None
            if user is None or user.merchant_id != merchant.id:
                raise NotFound(f"merchant '{ref}' has no portal user '{who.strip()}'")
            if not user.active:
                raise Conflict("this portal user is disabled")
            if user.environment is not caller.environment:
                raise Forbidden("this key's environment is not the user's")
            return self._issue(uow, user, TokenPurpose.SIGN_IN, now + SIGN_IN_LINK_LIFETIME, "link")

    def sign_in_link_user(self, token: str) -> PortalUser:
        with self._d.store.unit_of_work(readonly=True) as uow:
            _, user = self._token(uow, TokenPurpose.SIGN_IN, token)
            return self._view(uow, user)

    def use_sign_in_link(self, token: str) -> SignedIn:
        with self._d.store.unit_of_work() as uow:
            record, user = self._token(uow, TokenPurpose.SIGN_IN, token, for_update=True)
            if not uow.portal_tokens.use(record.digest, self._d.clock.now()):
                raise NotFound("this link is not valid: it was used, has expired, or was replaced")
            log.info("portal sign-in link used", user_id=user.id)
            return self._open_session(uow, user, second_factor_due=user.totp_enabled)

    # --- signing in --------------------------------------------------------------------------

    def sign_in(self, email: str, password: str) -> SignedIn:
        """Password sign-in: a new session (waiting for the code when two-factor is on)."""
        try:
            address = clean_email(email)
        except ValidationError:
            address = ""
        with self._d.store.unit_of_work(readonly=True) as uow:
            user = uow.portal_users.get_by_email(address) if address else None
        if user is None or user.password_hash is None:
            self._passwords.verify(self._dummy(), password)
            raise Unauthenticated(SIGN_IN_REFUSED)
        if not self._passwords.verify(user.password_hash, password) or not user.active:
            log.info("portal sign-in refused", user_id=user.id)
            raise Unauthenticated(SIGN_IN_REFUSED)
        rehash = (
            self._passwords.hash(password)
            if self._passwords.needs_rehash(user.password_hash)
            else None
        )
        with self._d.store.unit_of_work() as uow:
            fresh = uow.portal_users.get(user.id)
            if fresh is None or not fresh.active:
                raise Unauthenticated(SIGN_IN_REFUSED)
            if rehash:
                fresh.password_hash = rehash
                uow.portal_users.save(fresh)
            return self._open_session(uow, fresh, second_factor_due=fresh.totp_enabled)

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self._passwords.hash(_DUMMY_PASSWORD)
        return self._dummy_hash

    def _open_session(
        self, uow: UnitOfWork, user: PortalUserRecord, second_factor_due: bool
    ) -> SignedIn:
        now = self._d.clock.now()
        token = self._new_token()
        record = PortalSessionRecord(
            digest=token_digest(self._key, "session", token),
            user_id=user.id,
            environment=user.environment,
            created_at=now,
            last_seen_at=now,
            expires_at=now + SESSION_ABSOLUTE,
            second_factor_due=second_factor_due,
        )
        uow.portal_sessions.purge(now)  # sessions past their end that nobody came back to
        uow.portal_sessions.add(record)
        if not second_factor_due:
            user.last_sign_in_at = now
            uow.portal_users.save(user)
            log.info("portal signed in", user_id=user.id)
        return SignedIn(token, self._view(uow, user), second_factor_due, record.expires_at)

    def second_factor(self, token: str, code: str) -> SignedIn:
        """The code (or a recovery code) for a session whose password was right: the pending
        session ends and a new one, fully signed in, takes its place."""
        pending = self._session(token, allow_pending=True)
        if not pending.record.second_factor_due:
            raise Conflict("this session is already signed in")
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            user = uow.portal_users.get(pending.user.user_id)
            if user is None or not user.active or not user.totp_enabled or not user.totp_sealed:
                raise Unauthenticated("sign in again")
            secret = self._d.secrets.open(user.totp_sealed).decode()
            step = totp_step(secret, code, now, user.totp_last_step)
            if step is not None:
                user.totp_last_step = step
            else:
                wanted = normal_recovery_code(code)
                digest = token_digest(self._key, "recovery", wanted) if wanted else ""
                if not wanted or digest not in user.recovery_digests:
                    raise Unauthenticated("that code is not right")
                user.recovery_digests = tuple(d for d in user.recovery_digests if d != digest)
                log.info("portal recovery code used", user_id=user.id)
            uow.portal_users.save(user)
            uow.portal_sessions.delete(pending.record.digest)
            return self._open_session(uow, user, second_factor_due=False)

    def _session(self, token: str | None, allow_pending: bool = False) -> CurrentSession:
        expired = Unauthenticated("sign in to the portal")
        if not token or len(token) > 100:
            raise expired
        digest = token_digest(self._key, "session", token)
        now = self._d.clock.now()
        with self._d.store.unit_of_work(readonly=True) as uow:
            record = uow.portal_sessions.get(digest)
            user = uow.portal_users.get(record.user_id) if record else None
            if record is None or user is None:
                raise expired
            view = self._view(uow, user)
        if record.over(now) or not user.active or user.environment is not record.environment:
            with self._d.store.unit_of_work() as uow:
                uow.portal_sessions.delete(digest)
            raise expired
        if record.second_factor_due and not allow_pending:
            raise expired
        if now - record.last_seen_at >= TOUCH_EVERY:
            with self._d.store.unit_of_work() as uow:
                uow.portal_sessions.touch(digest, now)
        return CurrentSession(view, record)

    def session(self, token: str | None) -> CurrentSession:
        """The signed-in user of a session cookie (401 when over, pending or unknown)."""
        return self._session(token)

    def pending(self, token: str | None) -> CurrentSession:
        """A session waiting for its second factor (401 otherwise)."""
        current = self._session(token, allow_pending=True)
        if not current.record.second_factor_due:
            raise Unauthenticated("sign in to the portal")
        return current

    def sign_out(self, token: str | None) -> None:
        if token and len(token) <= 100:
            with self._d.store.unit_of_work() as uow:
                uow.portal_sessions.delete(token_digest(self._key, "session", token))

    # --- two-factor set-up ---------------------------------------------------------------------

    def begin_totp(self, user_id: str) -> TotpSetup:
        """A new seed, kept sealed until a code from it is confirmed."""
        secret = new_totp_secret(self._d.randomness.token_bytes(20))
        with self._d.store.unit_of_work() as uow:
            user = uow.portal_users.get(user_id)
            if user is None:
                raise NotFound(f"no portal user '{user_id}'")
            if user.totp_enabled:
                raise Conflict("two-factor sign-in is already on")
            user.totp_sealed = self._d.secrets.seal(secret.encode())
            user.totp_last_step = 0
            uow.portal_users.save(user)
        return TotpSetup(secret, totp_uri(secret, user.email))

    def confirm_totp(self, user_id: str, code: str) -> list[str]:
        """Switch two-factor on with a first good code; the recovery codes, shown once."""
        now = self._d.clock.now()
        codes = [recovery_code(self._d.randomness.token_bytes(8)) for _ in range(RECOVERY_CODES)]
        with self._d.store.unit_of_work() as uow:
            user = uow.portal_users.get(user_id)
            if user is None or user.totp_sealed is None:
                raise Conflict("start the two-factor set-up first")
            if user.totp_enabled:
                raise Conflict("two-factor sign-in is already on")
            secret = self._d.secrets.open(user.totp_sealed).decode()
            step = totp_step(secret, code, now, user.totp_last_step)
            if step is None:
                raise ValidationError.for_field("code", "that code is not right")
            user.totp_last_step = step
            user.totp_enabled = True
            user.recovery_digests = tuple(token_digest(self._key, "recovery", c) for c in codes)
            uow.portal_users.save(user)
        log.info("portal two-factor on", user_id=user_id)
        return codes

    def disable_totp(self, user_id: str, password: str) -> None:
        with self._d.store.unit_of_work(readonly=True) as uow:
            user = uow.portal_users.get(user_id)
        if user is None or user.password_hash is None:
            raise NotFound(f"no portal user '{user_id}'")
        if not self._passwords.verify(user.password_hash, password):
            raise ValidationError.for_field("password", "is not right")
        with self._d.store.unit_of_work() as uow:
            fresh = uow.portal_users.get(user_id)
            assert fresh is not None
            fresh.totp_enabled = False
            fresh.totp_sealed = None
            fresh.recovery_digests = ()
            uow.portal_users.save(fresh)
        log.info("portal two-factor off", user_id=user_id)
