from django.urls import path

from grading.metrics import metrics_view

urlpatterns = [path("metrics", metrics_view, name="metrics")]
