from django.urls import path

from grading.api import SubmissionDetailView, SubmissionListView

urlpatterns = [
    path("submissions", SubmissionListView.as_view(), name="api-submissions"),
    path("submissions/<int:submission_id>", SubmissionDetailView.as_view(), name="api-submission"),
]
