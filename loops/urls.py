"""Routes of the loop pages and their endpoints (mounted at `/loops/`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from loops import views_packet

app_name = "loops"

urlpatterns: list[URLPattern] = []

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
