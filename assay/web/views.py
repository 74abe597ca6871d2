"""Pages: home, workspaces, settings (members, providers, API tokens)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, PasswordChangeView
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import selectors, services
from ..models import ApiToken, Invitation, Membership, ModelProvider
from .decorators import workspace_view
from .errors import add_errors, form_service
from .forms import (
    InviteeSignUpForm,
    InviteForm,
    MemberAddForm,
    MemberCreateForm,
    ProviderForm,
    SecretForm,
    TokenForm,
    WorkspaceForm,
)


@login_required
def home(request):
    """Send the user to their current (or first) workspace, or to create one."""
    if selectors.password_change_required(user=request.user):
        return redirect("password_change_first")
    mine = selectors.workspaces_for_user(user=request.user)
    chosen = request.GET.get("ws") or request.session.get("workspace_slug", "")  # the switcher
    current = mine.filter(slug=chosen).first()
    current = current or mine.order_by("created_at").first()
    if current is None:
        return redirect("workspace_new")
    return redirect("evaluators:list", ws=current.slug)


@login_required
def workspace_new(request):
    form = WorkspaceForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            workspace = services.workspace_create(owner=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_errors(form, exc)
        else:
            messages.success(request, _("Workspace created."))
            return redirect("evaluators:list", ws=workspace.slug)
    return render(request, "assay/workspace_new.html", {"form": form})


@workspace_view()
def settings_home(request):
    return redirect("settings_providers", ws=request.workspace.slug)


@workspace_view(write_role=Membership.Role.OWNER)
def settings_members(request):
    form = MemberAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.membership_add(workspace=request.workspace, **form.cleaned_data)
        except ValidationError as exc:
            add_errors(form, exc)
        else:
            messages.success(request, _("Member added."))
            return redirect("settings_members", ws=request.workspace.slug)
    return _members_page(request, form=form)


def _members_page(
    request,
    *,
    form=None,
    invite_form=None,
    create_form=None,
    link: str = "",
    created=None,
    status: int = 200,
):
    context = {
        "form": form or MemberAddForm(),
        "invite_form": invite_form or InviteForm(),
        "create_form": create_form or MemberCreateForm(prefix="new"),
        "created": created,
        "members": selectors.members_list(workspace=request.workspace),
        "invitations": selectors.invitations_pending(workspace=request.workspace),
        "roles": Membership.Role.choices,
        "invite_link": link,
        "invitation_days": services.INVITATION_DAYS,
    }
    return render(request, "assay/settings_members.html", context, status=status)


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_invite(request):
    """Create a one-time invitation link; it is shown once, on the page this answers."""
    form = InviteForm(request.POST)
    issued = None
    if form.is_valid():
        issued = form_service(
            form,
            services.invitation_create,
            workspace=request.workspace,
            user=request.user,
            role=form.cleaned_data["role"],
        )
    if issued is None:
        return _members_page(request, invite_form=form, status=400)
    link = request.build_absolute_uri(reverse("invitation", kwargs={"key": issued.key}))
    return _members_page(request, link=link)


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_member_create(request):
    """Make a colleague's account with a temporary password, shown once on the page this
    answers; they choose their own at the first sign-in."""
    form = MemberCreateForm(request.POST, prefix="new")
    issued = None
    if form.is_valid():
        issued = form_service(
            form,
            services.member_create_with_password,
            workspace=request.workspace,
            **form.cleaned_data,
        )
    if issued is None:
        return _members_page(request, create_form=form, status=400)
    return _members_page(request, created=issued)


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_invitation_revoke(request, invitation_id):
    invitation = selectors.scoped_get(
        Invitation.objects, workspace=request.workspace, public_id=invitation_id
    )
    services.invitation_revoke(invitation=invitation)
    messages.success(request, _("Invitation withdrawn: its link no longer works."))
    return redirect("settings_members", ws=request.workspace.slug)


def invitation_open(request, key: str):
    """The page an invitation link opens: a signed-in person joins with one click; anyone
    else makes an account here (or signs in first, and comes back)."""
    invitation = selectors.invitation_by_key(key=key)
    if invitation is None:
        return render(request, "assay/invitation_gone.html", status=404)
    signed_in = request.user.is_authenticated
    form = None if signed_in else InviteeSignUpForm(request.POST or None)
    if request.method == "POST" and (signed_in or form.is_valid()):
        joined = _accept(request, invitation, form)
        if joined:
            messages.success(
                request, _("Welcome to %(name)s.") % {"name": invitation.workspace.name}
            )
            return redirect("evaluators:list", ws=invitation.workspace.slug)
    context = {"invitation": invitation, "form": form, "key": key}
    return render(
        request, "assay/invitation.html", context, status=400 if form and form.errors else 200
    )


def _accept(request, invitation, form) -> bool:
    try:
        if form is None:
            services.invitation_accept(invitation=invitation, user=request.user)
            return True
        user = services.invitation_accept_new_user(
            invitation=invitation,
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
        )
    except ValidationError as exc:
        if form is None:
            messages.error(request, " ".join(exc.messages))
        else:
            add_errors(form, exc)
        return False
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return True


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_member_change(request, member_id: int):
    membership = selectors.scoped_get(Membership.objects, workspace=request.workspace, pk=member_id)
    try:
        if request.POST.get("action") == "remove":
            services.membership_remove(membership=membership)
        else:
            services.membership_update(membership=membership, role=request.POST.get("role", ""))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("settings_members", ws=request.workspace.slug)


@workspace_view()
def settings_providers(request):
    providers = selectors.providers_list(workspace=request.workspace)
    return render(request, "assay/settings_providers.html", {"providers": providers})


@workspace_view(write_role=Membership.Role.OWNER)
def settings_secrets(request):
    """Named secrets for HTTP-target headers: members see names, hints and origins; owners
    add, replace and delete, and set where each may be sent (?edit=NAME fills the form with a
    secret's name and origins). Values are never shown again."""
    form = SecretForm(request.POST or None, initial=_secret_initial(request))
    if request.method == "POST" and form.is_valid():
        saved = form_service(
            form, services.secret_named_save, workspace=request.workspace, **form.cleaned_data
        )
        if saved is not None:
            messages.success(request, _("Secret %(name)s saved.") % {"name": saved.name})
            return redirect("settings_secrets", ws=request.workspace.slug)
    secrets = selectors.secrets_list(workspace=request.workspace)
    status = 400 if form.errors else 200
    return render(
        request, "assay/settings_secrets.html", {"form": form, "secrets": secrets}, status=status
    )


def _secret_initial(request) -> dict:
    name = request.GET.get("edit", "")
    found = selectors.secrets_named(workspace=request.workspace, names=[name]) if name else []
    if not found:
        return {}
    return {"name": found[0].name, "origins": "\n".join(found[0].origins)}


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_secret_delete(request, secret_id):
    secret = selectors.scoped_get(
        selectors.secrets_list(workspace=request.workspace),
        workspace=request.workspace,
        public_id=secret_id,
    )
    services.secret_named_delete(secret=secret)
    messages.success(request, _("Secret %(name)s deleted.") % {"name": secret.name})
    return redirect("settings_secrets", ws=request.workspace.slug)


@workspace_view(write_role=Membership.Role.OWNER)
def settings_provider_edit(request, provider_id=None):
    provider = None
    if provider_id is not None:
        provider = selectors.scoped_get(
            ModelProvider.objects, workspace=request.workspace, public_id=provider_id
        )
    form = ProviderForm(request.POST or None, instance=provider)
    if request.method == "POST" and form.is_valid():
        if _save_provider(request, form, provider):
            messages.success(request, _("Provider saved."))
            return redirect("settings_providers", ws=request.workspace.slug)
    return render(
        request, "assay/settings_provider_form.html", {"form": form, "provider": provider}
    )


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_provider_test(request, provider_id=None):
    """The provider form's "Test connection" (a partial): the form's values as typed, saved
    or not (a new provider too), else the saved provider's."""
    provider = None
    if provider_id is not None:
        provider = selectors.scoped_get(
            ModelProvider.objects, workspace=request.workspace, public_id=provider_id
        )
    if provider is not None and "base_url" not in request.POST:
        tried = services.provider_test_connection(provider=provider)
    else:
        tried = services.provider_try_connection(
            workspace=request.workspace, provider=provider, **_typed_connection(request.POST)
        )
    return render(request, "assay/_provider_test.html", {"tried": tried})


def _typed_connection(data) -> dict:
    try:
        timeout_s = float(data.get("timeout_s") or 15.0)
    except ValueError:
        timeout_s = 15.0
    return {
        "base_url": data.get("base_url", "").strip(),
        "api_key": data.get("api_key", ""),
        "default_model": data.get("default_model", "").strip(),
        "timeout_s": timeout_s,
    }


def _save_provider(request, form, provider) -> bool:
    data = dict(form.cleaned_data)
    api_key = data.pop("api_key", "") or None
    try:
        if provider is None:
            services.provider_create(workspace=request.workspace, api_key=api_key, **data)
        else:
            services.provider_update(provider=provider, api_key=api_key, **data)
    except ValidationError as exc:
        add_errors(form, exc)
        return False
    return True


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_provider_delete(request, provider_id):
    provider = selectors.scoped_get(
        ModelProvider.objects, workspace=request.workspace, public_id=provider_id
    )
    services.provider_delete(provider=provider)
    messages.success(request, _("Provider deleted."))
    return redirect("settings_providers", ws=request.workspace.slug)


@workspace_view(write_role=Membership.Role.VIEWER)
def settings_tokens(request):
    form = TokenForm(request.POST or None)
    new_key = None
    if request.method == "POST" and form.is_valid():
        issued = services.token_issue(
            workspace=request.workspace, user=request.user, name=form.cleaned_data["name"]
        )
        new_key = issued.key
        form = TokenForm()
    tokens = selectors.tokens_list(workspace=request.workspace, user=request.user)
    return render(
        request, "assay/settings_tokens.html", {"form": form, "tokens": tokens, "new_key": new_key}
    )


@require_POST
@workspace_view(write_role=Membership.Role.VIEWER)
def settings_token_revoke(request, token_id):
    token = selectors.scoped_get(
        ApiToken.objects.filter(user=request.user), workspace=request.workspace, public_id=token_id
    )
    services.token_revoke(token=token)
    messages.success(request, _("Token revoked."))
    return redirect(reverse("settings_tokens", kwargs={"ws": request.workspace.slug}))


class SignInView(LoginView):
    """Django's sign-in, naming the demo account where `make run` loaded the demo (never in
    production, where a demo password on the page would invite anyone in)."""

    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["demo_sign_in"] = selectors.demo_sign_in()
        return context


class PasswordChangeFirstView(PasswordChangeView):
    """Choosing one's own password; required before anything else after signing in with a
    temporary one (workspace_view sends such a user here)."""

    template_name = "registration/password_change_first.html"
    success_url = reverse_lazy("home")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["required"] = selectors.password_change_required(user=self.request.user)
        return context

    def form_valid(self, form):
        response = super().form_valid(form)
        services.password_change_done(user=self.request.user)
        messages.success(self.request, _("Your password is changed."))
        return response
