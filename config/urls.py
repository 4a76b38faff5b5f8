"""URL routes."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from studio.views import tokens

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/tokens/", tokens.tokens_page, name="account-tokens"),
    path(
        "accounts/tokens/<int:token_id>/revoke/",
        tokens.token_revoke_view,
        name="account-token-revoke",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view: Swagger UI's init script is a file (?script), not inline (core/csp.py).
    path(
        "api/docs",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", template_name="core/swagger_ui.html"
        ),
        name="api-docs",
    ),
    path("api/", include("grading.urls")),
    path("api/review/", include("interviews.review.api_urls")),
    path("api/loops/", include("loops.api_urls")),  # loops' scheduling API (issue 39 point 6)
    path("sessions/", include("interviews.urls")),
    path("loops/", include("loops.urls")),
    path("studio/", include("studio.urls")),
    path("", include("grading.metrics_urls")),
    path("", include("frontend.urls")),
]

# JSON error bodies under /api/ (a path matching no route, a body over the upload limit);
# elsewhere the site's pages (frontend/templates/400.html, 403, 404, 500).
handler400 = "core.api.bad_request"
handler403 = "core.api.permission_denied"
handler404 = "core.api.page_not_found"
handler500 = "core.api.server_error"
