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
from django.views.decorators.http import require_http_methods, require_POST

from core.tokens import TokenError, token_create, token_revoke, tokens_of

NEW_SECRET_SESSION_KEY = "new_token"  # noqa: S105 (a session key, not a secret)


@login_required
@require_http_methods(["GET", "POST"])
def tokens_page(request: HttpRequest) -> HttpResponse:
    secret, error, status = "", "", 200
    if request.method == "POST":
        try:
            _, secret = token_create(user=request.user, name=request.POST.get("name", ""))
        except TokenError as exc:
            error, status = exc.message, 400
        else:
            request.session[NEW_SECRET_SESSION_KEY] = secret
            return redirect("account-tokens")
    else:
        secret = request.session.pop(NEW_SECRET_SESSION_KEY, "")
    context = {"tokens": tokens_of(request.user), "secret": secret, "error": error}
    return render(request, "studio/tokens.html", context, status=status)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_revoke(user=request.user, token_id=token_id)
    except TokenError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Token {token.name} revoked.")
    return redirect("account-tokens")
