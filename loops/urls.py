"""Routes of the loop pages and their endpoints (mounted at `/loops/`).

Route names are unique across the site (the door matrix picks routes by bare name): never
interviews' `detail`, `report`, `review`..."""

from __future__ import annotations

from django.urls import URLPattern, path

from loops import views, views_calibration, views_packet, views_practice

app_name = "loops"

urlpatterns: list[URLPattern] = [
    # Scheduling (issue 39 point 1): the list, the builder, the day, the invitation.
    path("", views.loop_list, name="loops"),
    path("new/", views.loop_new, name="loop_new"),
    path("join/<str:token>/", views.loop_join, name="loop_join"),
    path("<int:loop_id>/", views.loop_detail, name="loop"),
    path("<int:loop_id>/schedule", views.loop_schedule_change, name="loop_schedule"),
]

# The hiring packet, its debrief and the candidate's combined report (loops/views_packet.py).
urlpatterns += [
    path("<int:loop_id>/packet/", views_packet.packet_page, name="packet"),
    path("<int:loop_id>/packet.pdf", views_packet.packet_pdf, name="packet_pdf"),
    path("<int:loop_id>/packet/decision/", views_packet.packet_decision,
         name="packet_decision"),
    path("<int:loop_id>/packet/close/", views_packet.packet_close, name="packet_close"),
    path("<int:loop_id>/packet/release/", views_packet.packet_release, name="packet_release"),
    path("<int:loop_id>/report/", views_packet.loop_report, name="loop_report"),
]

# Calibration (issue 39, point 4): admins and recruiters.
urlpatterns += [
    path("calibration/", views_calibration.calibration_page, name="calibration"),
]

# A mock onsite for one person (issue 39, point 5): book, take the rounds, read the report.
urlpatterns += [
    path("practice/", views_practice.practice_list, name="practice"),
    path("practice/book", views_practice.practice_book, name="practice_book"),
    path("practice/<int:loop_id>/", views_practice.practice_loop, name="practice_loop"),
    path("practice/<int:loop_id>/rounds/<int:position>/start", views_practice.practice_start,
         name="practice_start"),
]
