"""Business logic for workspaces, members, API tokens, secrets and model providers."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .models import (
    ApiToken,
    Invitation,
    Membership,
    ModelProvider,
    Secret,
    UserPreference,
    WorkerBeat,
    Workspace,
)
from .safety import crypto
from .safety.origins import OriginError, origins_normalized
from .safety.outbound import outbound_policy, url_problem
from .safety.redact import scrub

User = get_user_model()


def workspace_create(*, name: str, owner: AbstractBaseUser, slug: str = "") -> Workspace:
    """Create a workspace with `owner` as its first owner. Without a slug one is made from the
    name (a free variant of it), or, for a name with no Latin letters or digits (客服团队), a
    short random one: the slug is optional, so a name alone must always do."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("A workspace needs a name.")})
    slug = slugify(slug)[:64] if slug.strip() else _workspace_slug_free(name)
    if not slug:
        raise ValidationError({"slug": _("The slug must contain letters or digits.")})
    if Workspace.objects.filter(slug=slug).exists():
        raise ValidationError({"slug": _("The slug %(slug)r is taken.") % {"slug": slug}})
    with transaction.atomic():
        workspace = Workspace.objects.create(name=name, slug=slug, created_by=owner)
        Membership.objects.create(workspace=workspace, user=owner, role=Membership.Role.OWNER)
    return workspace


SLUG_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: read aloud or typed


def _workspace_slug_free(name: str) -> str:
    """A slug no workspace has: the name's ASCII slug, numbered when taken, else `ws-` and six
    random letters and digits (a CJK name has no ASCII slug; pinyin would add a dependency
    and still clash on homophones)."""
    base = slugify(name)[:56]
    for n in range(1, 50):
        candidate = (base if n == 1 else f"{base}-{n}") if base else _random_slug()
        if not Workspace.objects.filter(slug=candidate).exists():
            return candidate
    return _random_slug()


def _random_slug() -> str:
    return "ws-" + "".join(secrets.choice(SLUG_ALPHABET) for _i in range(6))


def workspace_rename(*, workspace: Workspace, user: AbstractBaseUser, name: str) -> Workspace:
    """Rename a workspace; only its owners may."""
    from .selectors import membership_get

    membership = membership_get(workspace=workspace, user=user)
    if membership is None or not membership.is_owner:
        raise PermissionDenied(_("Only owners can rename a workspace."))
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("A workspace needs a name.")})
    workspace.name = name[:120]
    workspace.save(update_fields=["name"])
    return workspace


def user_create(*, username: str, password: str, email: str = "") -> AbstractBaseUser:
    """Create a user account; the username must be free."""
    if User.objects.filter(username=username).exists():
        raise ValidationError(
            {"username": _("The username %(username)r is taken.") % {"username": username}}
        )
    return User.objects.create_user(username=username, password=password, email=email)


def admin_bootstrap(
    *, username: str, password: str, workspace_name: str
) -> tuple[AbstractBaseUser, Workspace | None]:
    """An installation's first administrator and workspace, safe to run on every start: a new
    account is created as a superuser (its password checked like any other), and an account
    that belongs to no workspace gets one. An existing account keeps its password: one changed
    in the app must survive a restart. Returns the user and the workspace made, or None."""
    user = User.objects.filter(username=username).first()
    if user is None:
        user = _admin_create(username=username, password=password)
    if Membership.objects.filter(user=user).exists():
        return user, None
    return user, workspace_create(name=workspace_name, owner=user)


def _admin_create(*, username: str, password: str) -> AbstractBaseUser:
    if not password:
        raise ValidationError(
            {"password": f"The account {username!r} is new: it needs a password."}
        )
    candidate = User(username=username)
    try:
        password_validation.validate_password(password, candidate)
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from None
    return User.objects.create_superuser(username=username, password=password, email="")


def membership_add(*, workspace: Workspace, username: str, role: str) -> Membership:
    """Add an existing user to a workspace with a role."""
    if role not in Membership.Role.values:
        raise ValidationError(
            {"role": _("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}}
        )
    user = User.objects.filter(username=username).first()
    if user is None:
        raise ValidationError(
            {"username": _("No user named %(username)r.") % {"username": username}}
        )
    try:
        with transaction.atomic():
            return Membership.objects.create(workspace=workspace, user=user, role=role)
    except IntegrityError:
        raise ValidationError(
            {"username": _("%(username)r is already a member.") % {"username": username}}
        ) from None


def membership_update(*, membership: Membership, role: str) -> Membership:
    """Change a member's role, keeping at least one owner."""
    if role not in Membership.Role.values:
        raise ValidationError(
            {"role": _("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}}
        )
    _ensure_owner_remains(membership=membership, new_role=role)
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


def membership_remove(*, membership: Membership) -> None:
    """Remove a member, keeping at least one owner."""
    _ensure_owner_remains(membership=membership, new_role=None)
    membership.delete()


@dataclass(frozen=True)
class IssuedMember:
    membership: Membership
    password: str  # temporary, shown once to the owner, changed at the first sign-in


def member_create_with_password(*, workspace: Workspace, username: str, role: str) -> IssuedMember:
    """Make an account for a colleague with a random temporary password and add them with
    `role`; they must choose their own password when they first sign in."""
    errors = {}
    if role not in Membership.Role.values:
        errors["role"] = [_("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}]
    try:
        User.username_validator(username)
    except ValidationError as exc:
        errors["username"] = exc.messages
    if errors:
        raise ValidationError(errors)
    password = secrets.token_urlsafe(12)
    with transaction.atomic():
        user = user_create(username=username, password=password)
        UserPreference.objects.create(user=user, must_change_password=True)
        membership = Membership.objects.create(workspace=workspace, user=user, role=role)
    return IssuedMember(membership=membership, password=password)


def password_change_done(*, user: AbstractBaseUser) -> None:
    """The user chose their own password: the temporary one's hold on them ends."""
    UserPreference.objects.filter(user=user).update(must_change_password=False)
    user._assay_must_change = False


INVITATION_DAYS = 7


@dataclass(frozen=True)
class IssuedInvitation:
    invitation: Invitation
    key: str  # in the link, shown once, never stored


def invitation_create(
    *, workspace: Workspace, user: AbstractBaseUser, role: str
) -> IssuedInvitation:
    """A one-time invitation to `workspace` with `role`, valid for INVITATION_DAYS days; the
    key (for the link) is returned once and only its hash is kept."""
    if role not in Membership.Role.values:
        raise ValidationError(
            {"role": _("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}}
        )
    key = "inv_" + secrets.token_urlsafe(30)
    invitation = Invitation.objects.create(
        workspace=workspace,
        role=role,
        key_hash=crypto.hash_token_key(key),
        created_by=user,
        expires_at=timezone.now() + timedelta(days=INVITATION_DAYS),
    )
    return IssuedInvitation(invitation=invitation, key=key)


def invitation_revoke(*, invitation: Invitation) -> Invitation:
    """Withdraw an unused invitation; its link stops working (revoking twice is harmless)."""
    if invitation.revoked_at is None and invitation.accepted_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitation_accept(*, invitation: Invitation, user: AbstractBaseUser) -> Membership:
    """Make `user` a member with the invitation's role and use the invitation up. The claim
    is one conditional UPDATE, so two people opening one link cannot both get in; an
    existing member keeps their role (the invitation is used up all the same)."""
    with transaction.atomic():
        claimed = Invitation.objects.filter(
            pk=invitation.pk,
            accepted_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        ).update(accepted_at=timezone.now(), accepted_by=user)
        if not claimed:
            raise ValidationError(_("This invitation was used, withdrawn or has expired."))
        membership, _created = Membership.objects.get_or_create(
            workspace=invitation.workspace, user=user, defaults={"role": invitation.role}
        )
    return membership


def invitation_accept_new_user(
    *, invitation: Invitation, username: str, password: str
) -> AbstractBaseUser:
    """Create the invitee's account and accept the invitation with it, in one transaction:
    a used-up invitation creates no account."""
    with transaction.atomic():
        user = user_create(username=username, password=password)
        invitation_accept(invitation=invitation, user=user)
    return user


def _ensure_owner_remains(*, membership: Membership, new_role: str | None) -> None:
    if membership.role != Membership.Role.OWNER or new_role == Membership.Role.OWNER:
        return
    owners = membership.workspace.memberships.filter(role=Membership.Role.OWNER)
    if owners.count() <= 1:
        raise ValidationError({"role": _("A workspace must keep at least one owner.")})


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # shown once, never stored


def token_issue(*, workspace: Workspace, user: AbstractBaseUser, name: str) -> IssuedToken:
    """Issue an API token; the plaintext key is returned once and only its hash is kept."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("A token needs a name.")})
    key = crypto.new_token_key()
    token = ApiToken.objects.create(
        workspace=workspace,
        user=user,
        name=name[:120],
        prefix=key[:10],
        key_hash=crypto.hash_token_key(key),
    )
    return IssuedToken(token=token, key=key)


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke a token; revoking twice is harmless."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_authenticate(*, key: str) -> ApiToken | None:
    """Resolve a presented key to an active token whose user is still a member."""
    token = (
        ApiToken.objects.select_related("user", "workspace")
        .filter(key_hash=crypto.hash_token_key(key), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    if not Membership.objects.filter(workspace=token.workspace, user=token.user).exists():
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token


def secret_store(*, workspace: Workspace, value: str, secret: Secret | None = None) -> Secret:
    """Encrypt and store a value (creating or replacing a secret)."""
    if secret is None:
        secret = Secret(workspace=workspace)
    secret.ciphertext = crypto.encrypt(value)
    secret.hint = value[-4:] if len(value) >= 12 else ""
    secret.save()
    return secret


SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
MAX_SECRET_BYTES = 8192


def secret_named_save(
    *,
    workspace: Workspace,
    name: str,
    value: str | None = None,
    origins: list[str] | None = None,
) -> Secret:
    """Create the named secret, or change it; HTTP targets use it as `{{secrets.NAME}}` in
    headers and may send it only to its `origins` (scheme://host[:port]; none: nowhere).
    An empty `value` keeps the stored one (a new secret needs one), `origins` None keeps the
    stored ones. The value is write-only from here on."""
    secret = Secret.objects.filter(workspace=workspace, name=name).first() if name else None
    errors = _secret_problems(name, value, origins, is_new=secret is None)
    if errors:
        raise ValidationError(errors)
    secret = secret or Secret(workspace=workspace, name=name)
    if origins is not None:
        secret.origins = origins_normalized(origins)
    if not value:
        secret.save(update_fields=["origins", "updated_at"])
        return secret
    return secret_store(workspace=workspace, value=value, secret=secret)


def _secret_problems(name, value, origins, *, is_new: bool) -> dict[str, list[str]]:
    errors = {}
    if not isinstance(name, str) or not SECRET_NAME.match(name):
        errors["name"] = [_("Give a name of letters, digits and _ (e.g. APP_TOKEN), at most 64.")]
    if value is None or value == "":
        if is_new:
            errors["value"] = [_("Give the secret's value.")]
    elif not isinstance(value, str) or len(value.encode()) > MAX_SECRET_BYTES:
        errors["value"] = [_("Give a value of at most 8 KB.")]
    if origins is not None:
        try:
            origins_normalized(origins)
        except OriginError as exc:
            errors["origins"] = [str(exc)]
    return errors


def secret_named_delete(*, secret: Secret) -> None:
    """Delete a named secret (experiments that use it fail their rows until it is back)."""
    if not secret.name:
        raise ValidationError({"secret": _("A provider's key is removed with its provider.")})
    secret.delete()


def secret_reveal(*, secret: Secret) -> str:
    """The plaintext, for the one place that needs it: the request to the provider."""
    return crypto.decrypt(secret.ciphertext)


def provider_create(*, workspace: Workspace, api_key: str | None = None, **fields) -> ModelProvider:
    """Create a provider; the API key is encrypted into a Secret in the same transaction."""
    provider = ModelProvider(workspace=workspace)
    _provider_assign(provider=provider, fields=fields)
    with transaction.atomic():
        if api_key:
            provider.api_key = secret_store(workspace=workspace, value=api_key)
        provider.save()
    return provider


def provider_update(
    *, provider: ModelProvider, api_key: str | None = None, **fields
) -> ModelProvider:
    """Update fields; a non-empty api_key replaces the stored one, an empty one keeps it.

    A new base URL drops the stored key: the key was given for the old host, and keeping it
    would send it wherever the URL now points. The key must be entered again for the new one.
    """
    # Compared with the stored row: a bound ModelForm has already changed the instance.
    stored = ModelProvider.objects.filter(pk=provider.pk).values_list("base_url", flat=True)
    moved = "base_url" in fields and fields["base_url"] != stored.first()
    _provider_assign(provider=provider, fields=fields)
    with transaction.atomic():
        stale = provider.api_key if moved and not api_key and provider.api_key_id else None
        if api_key:
            provider.api_key = secret_store(
                workspace=provider.workspace, value=api_key, secret=provider.api_key
            )
        elif stale is not None:
            provider.api_key = None
        provider.save()
        if stale is not None:
            stale.delete()
    return provider


def provider_delete(*, provider: ModelProvider) -> None:
    """Delete a provider and its stored key."""
    with transaction.atomic():
        if provider.api_key_id:
            provider.api_key.delete()
        provider.delete()


def prices_problem(prices) -> str:
    """What is wrong with a provider's price table ('' when nothing is)."""
    if not isinstance(prices, dict) or len(prices) > 200:
        return _(
            'Give prices as {"model": {"input": USD per 1M tokens, "output": …}} (≤ 200 models).'
        )
    for model, price in prices.items():
        if not isinstance(price, dict) or set(price) - {"input", "output"}:
            return _("%(model)r: give input and output prices per million tokens.") % {
                "model": model
            }
        for side, value in price.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value < 1e6
            ):
                return _(
                    "%(model)r: the %(side)s price must be a number ≥ 0 (USD per 1M tokens)."
                ) % {"model": model, "side": side}
    return ""


def _provider_assign(*, provider: ModelProvider, fields: dict) -> None:
    unknown = set(fields) - set(ModelProvider.EDITABLE_FIELDS)
    if unknown:
        raise ValidationError({name: "Unknown field." for name in sorted(unknown)})
    for name, value in fields.items():
        setattr(provider, name, value)
    provider.full_clean(exclude=["workspace", "api_key"], validate_unique=False)
    problem = url_problem(provider.base_url, outbound_policy(settings.ASSAY_OUTBOUND_ALLOW))
    if problem:
        raise ValidationError({"base_url": problem})
    problem = prices_problem(provider.prices)
    if problem:
        raise ValidationError({"prices": problem})
    clash = ModelProvider.objects.filter(workspace=provider.workspace, name=provider.name)
    if clash.exclude(pk=provider.pk).exists():
        raise ValidationError(
            {"name": _("A provider named %(name)r already exists.") % {"name": provider.name}}
        )


def provider_test_connection(*, provider: ModelProvider) -> dict:
    """Test a saved provider with its stored key (see connection_test)."""
    key = secret_reveal(secret=provider.api_key) if provider.api_key_id else ""
    return connection_test(
        base_url=provider.base_url,
        key=key,
        model=provider.default_model,
        timeout_s=provider.timeout_s,
    )


def provider_try_connection(
    *,
    workspace: Workspace,
    base_url: str,
    api_key: str = "",
    default_model: str = "",
    timeout_s: float = 15.0,
    provider: ModelProvider | None = None,
) -> dict:
    """Test a provider form's values before they are saved: the typed key, else the stored
    key of `provider`, but only while the base URL is the stored one (a key given for one
    host never goes to another, as in provider_update)."""
    problem = url_problem(base_url, outbound_policy(settings.ASSAY_OUTBOUND_ALLOW))
    if problem:
        return {"ok": False, "message": problem, "models": [], "latency_ms": None}
    key = api_key
    if not key and provider is not None and provider.api_key_id:
        key = secret_reveal(secret=provider.api_key) if base_url == provider.base_url else ""
    return connection_test(base_url=base_url, key=key, model=default_model, timeout_s=timeout_s)


def connection_test(*, base_url: str, key: str, model: str, timeout_s: float) -> dict:
    """Ask an OpenAI-compatible endpoint for its models (GET <base_url>/models) or, where it
    lists none (404/405), for a 1-token chat with `model`: {"ok", "message", "models" (a
    few), "latency_ms"}. The key goes only to that address, through the outbound policy's
    transport, and is scrubbed from whatever comes back."""
    import time

    import httpx2

    from .safety.outbound import refused_in, ssl_context, sync_transport

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = sync_transport(
        outbound_policy(settings.ASSAY_OUTBOUND_ALLOW), ssl_context=ssl_context()
    )
    started = time.perf_counter()
    try:
        with httpx2.Client(transport=transport, timeout=min(timeout_s or 15.0, 15.0)) as client:
            response = _connection_ask(client, base_url.rstrip("/"), headers, model)
    except Exception as exc:  # any failure to connect is the answer, not an error of ours
        refused = refused_in(exc)
        text = (
            str(refused)
            if refused
            else _("could not connect: %(error)s") % {"error": f"{type(exc).__name__}: {exc}"}
        )
        return {"ok": False, "message": scrub(text, key)[:500], "models": [], "latency_ms": None}
    return _connection_answer(response, key, (time.perf_counter() - started) * 1000)


def _connection_ask(client, base: str, headers: dict, model: str):
    response = client.get(base + "/models", headers=headers)
    if response.status_code in (404, 405) and model:
        body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
        response = client.post(base + "/chat/completions", headers=headers, json=body)
    return response


def _connection_answer(response, key: str, latency_ms: float) -> dict:
    if response.status_code >= 400:
        body = scrub(response.text, key)[:300]
        message = _("the endpoint answered HTTP %(status)s: %(body)s") % {
            "status": response.status_code,
            "body": body,
        }
        return {"ok": False, "message": message, "models": [], "latency_ms": round(latency_ms)}
    try:
        listed = [m.get("id") for m in response.json().get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        listed = []
    models = [str(m)[:100] for m in listed if m][:10]
    message = (
        ngettext("connected; %(n)d model listed", "connected; %(n)d models listed", len(listed))
        % {"n": len(listed)}
        if listed
        else _("connected")
    )
    return {"ok": True, "message": message, "models": models, "latency_ms": round(latency_ms)}


def preference_language_set(*, user: AbstractBaseUser, language: str) -> None:
    """Save `language` (a code of settings.LANGUAGES; anything else is ignored) as the user's
    interface language."""
    if language not in dict(settings.LANGUAGES):
        return
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    user._assay_language = language


def worker_beat(*, hostname: str) -> None:
    """Record that a pool process of worker `hostname` ran a task now; beats of workers gone
    for a day are dropped."""
    now = timezone.now()
    if not WorkerBeat.objects.filter(hostname=hostname).update(beat_at=now):
        WorkerBeat.objects.get_or_create(hostname=hostname, defaults={"beat_at": now})
    WorkerBeat.objects.filter(beat_at__lt=now - timedelta(days=1)).delete()
