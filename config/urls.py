"""URL routes."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("grading.urls")),
    path("api/review/", include("interviews.review.api_urls")),
    path("sessions/", include("interviews.urls")),
    path("studio/", include("studio.urls")),
    path("", include("grading.metrics_urls")),
    path("", include("frontend.urls")),
]
