"""`/accounts/tokens/`: any signed-in user makes named API tokens and revokes them.

Thin views over core.tokens. Making a token is POST-redirect-GET (issue 28.7): the POST
puts the new secret in the session and redirects; the next GET takes it out and shows it,
once, so a reload neither shows it again nor makes another token. The secret never travels
in a URL, and the session holds it only until that GET.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from core.edges import form_edge
from core.errors import ApplicationError
from core.tokens import token_create, token_revoke, tokens_of


def tokens_back(request: HttpRequest, **_: object) -> str:
    return reverse("account-tokens")


NEW_SECRET_SESSION_KEY = "new_token"  # noqa: S105 (a session key, not a secret)


def _tokens_refused(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
    context = {"tokens": tokens_of(request.user), "secret": "", "error": exc.message}
    return render(request, "studio/tokens.html", context, status=400)


@login_required
@form_edge(scope="tokens", methods=("GET", "POST"), on_error=_tokens_refused)
def tokens_page(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        _, secret = token_create(user=request.user, name=request.POST.get("name", ""))
        request.session[NEW_SECRET_SESSION_KEY] = secret
        return redirect("account-tokens")
    secret = request.session.pop(NEW_SECRET_SESSION_KEY, "")
    context = {"tokens": tokens_of(request.user), "secret": secret, "error": ""}
    return render(request, "studio/tokens.html", context)


@login_required
@form_edge(scope="tokens", back=tokens_back)
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    token = token_revoke(user=request.user, token_id=token_id)
    messages.success(request, f"Token {token.name} revoked.")
    return redirect("account-tokens")
