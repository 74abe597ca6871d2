"""Forms for workspace settings pages."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import BaseUserCreationForm
from django.utils.translation import gettext_lazy as _

from ..models import Membership, ModelProvider


class WorkspaceForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    slug = forms.SlugField(
        label=_("Slug (optional)"),
        max_length=64,
        required=False,
        help_text=_(
            "Used in page URLs: letters, digits and hyphens. Left empty, it is made from the "
            "name (a short random one for a name in Chinese)."
        ),
    )


class MemberAddForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    role = forms.ChoiceField(
        label=_("Role"), choices=Membership.Role.choices, initial=Membership.Role.EDITOR
    )


class MemberCreateForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    role = forms.ChoiceField(
        label=_("Role"), choices=Membership.Role.choices, initial=Membership.Role.EDITOR
    )


class InviteForm(forms.Form):
    role = forms.ChoiceField(
        label=_("Role"), choices=Membership.Role.choices, initial=Membership.Role.EDITOR
    )


class InviteeSignUpForm(BaseUserCreationForm):
    """The account an invited colleague makes when they open their link: a free username
    and a password twice, checked by the site's password rules (the service creates it)."""

    class Meta(BaseUserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)


class TokenForm(forms.Form):
    name = forms.CharField(label=_("Token name"), max_length=120)


class SecretForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=64,
        help_text=_("Letters, digits and _; HTTP targets use it as {{secrets.NAME}} in headers."),
    )
    value = forms.CharField(
        label=_("Value"),
        strip=False,
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=_(
            "Write-only: stored encrypted and never shown again. Saving a name again "
            "replaces its value; leave it empty to keep the stored value."
        ),
    )
    origins = forms.CharField(
        label=_("Allowed origins"),
        required=False,
        widget=forms.Textarea(
            attrs={"rows": 3, "class": "mono", "placeholder": "https://app.example.com"}
        ),
        help_text=_(
            "One per line, scheme://host[:port]. HTTP targets may send the secret only to "
            "these; with none it is sent nowhere."
        ),
    )

    def clean_origins(self) -> list[str]:
        # One per line (commas too); the service checks each.
        text = self.cleaned_data.get("origins") or ""
        return [part.strip() for part in text.replace(",", "\n").splitlines() if part.strip()]


class PricesField(forms.JSONField):
    """A provider's prices as JSON, shown empty (not `null` or `{}`) when there are none."""

    def prepare_value(self, value):
        if value is None or value == {} or value == "null":
            return ""
        return super().prepare_value(value)


class ProviderForm(forms.ModelForm):
    base_url = forms.URLField(
        label=_("Base URL"),
        max_length=500,
        assume_scheme="https",
        help_text=_("OpenAI-compatible endpoint, e.g. https://api.openai.com/v1"),
    )
    api_key = forms.CharField(
        label=_("API key"),
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=_("Write-only. Leave empty to keep the stored key."),
    )

    prices = PricesField(
        label=_("Prices"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "class": "mono"}),
        help_text=_(
            'USD per million tokens by model, for cost figures: {"gpt-4o": {"input": 2.5, '
            '"output": 10}}. Leave empty when unknown.'
        ),
    )

    class Meta:
        model = ModelProvider
        fields = list(ModelProvider.EDITABLE_FIELDS)
        labels = {
            "name": _("Name"),
            "default_model": _("Default model"),
            "timeout_s": _("Timeout (s)"),
            "rpm_limit": _("Requests per minute (optional)"),
            "tpm_limit": _("Tokens per minute (optional)"),
            "structured_mode": _("Answer mode"),
            "max_retries": _("Max retries"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:  # nothing stored to keep yet
            self.fields["api_key"].help_text = _(
                "Optional: only for endpoints that need one. Write-only: stored encrypted and "
                "never shown again."
            )

    def clean_prices(self):
        return self.cleaned_data.get("prices") or {}
