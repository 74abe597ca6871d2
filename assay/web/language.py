"""The interface language: a user's saved choice wins, then the language cookie, then the
browser's Accept-Language (Django's LocaleMiddleware does the last two).

The nav's switch posts to `language_set`, which is Django's `set_language` (it sets the cookie
and redirects back) plus saving the choice on the user's preference, so it follows them to
another browser and is applied again on every sign-in."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from ..selectors import preference_language
from ..services import preference_language_set


class UserLanguageMiddleware:
    """After authentication: a signed-in user's saved language replaces what LocaleMiddleware
    picked from the cookie or the browser. LocaleMiddleware's response step then sends
    Content-Language for it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = preference_language(user=getattr(request, "user", None))
        if language and language != getattr(request, "LANGUAGE_CODE", None):
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


@require_POST
def language_set(request):
    """Django's set_language (cookie, safe redirect back), remembering the choice for the user."""
    response = set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and translation.check_for_language(language):
        preference_language_set(user=request.user, language=language)
    return response


@receiver(user_logged_in, dispatch_uid="assay-language-on-sign-in")
def _language_on_sign_in(sender, request, user, **kwargs):
    """Signing in applies the user's saved language to the page they land on; a user who never
    chose keeps what they picked before signing in (the cookie) or their browser's."""
    language = preference_language(user=user)
    if language and request is not None:
        translation.activate(language)
        request.LANGUAGE_CODE = language
