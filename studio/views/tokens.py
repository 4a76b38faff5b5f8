"""`/accounts/tokens/`: any signed-in user makes named API tokens and revokes them.

Thin views over core.tokens. A new token's secret is shown once, in the response to the POST
that made it (never stored, never redirected through a URL or a session).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.tokens import TokenError, token_create, token_revoke, tokens_of


@login_required
@require_http_methods(["GET", "POST"])
def tokens_page(request: HttpRequest) -> HttpResponse:
    secret, error, status = "", "", 200
    if request.method == "POST":
        try:
            _, secret = token_create(user=request.user, name=request.POST.get("name", ""))
        except TokenError as exc:
            error, status = exc.message, 400
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
