"""The hiring packet as a PDF (fpdf2, as the session report: interviews/review/pdf.py), drawn
from the same dict as the page (loops.services.packet.packet), so it shows nothing the page
would not."""

from __future__ import annotations

from typing import Any

from fpdf import FPDF

from interviews.review.pdf import latin, moment_in_zone

HIDDEN_WORDS = {
    "never": "Closed: this loop keeps each round's scorecards to its own panel.",
    "submit_first": "Closed until you submit your own scorecard.",
}


def packet_pdf(data: dict[str, Any], zone: str = "UTC") -> bytes:
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin

    def heading(text: str, size: int = 13) -> None:
        pdf.ln(3)
        pdf.set_font("Helvetica", "B", size)
        pdf.multi_cell(width, 7, latin(text), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 10)

    def line(text: str) -> None:
        pdf.multi_cell(width, 5, latin(text), new_x="LMARGIN", new_y="NEXT")

    loop = data["loop"]
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(width, 9, latin(f"Hiring packet: {loop.title}"), new_x="LMARGIN",
                   new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    line(f"Loop #{loop.pk}, candidate {data['candidate'] or '-'}; other rounds' scorecards: "
         f"{data['setting_label'].lower()}")
    if data["must_submit"]:
        line("Submit your own scorecard first: the other rounds' scorecards open to you once "
             "yours is in.")
    heading("Recommendations side by side")
    for row in data["side_by_side"]:
        line(f"  Round {row['round']} ({row['label']}), {row['interviewer']}: "
             f"{row['recommendation_label']}")
    if not data["side_by_side"]:
        line("No scorecard to show.")
    for r in data["rounds"]:
        heading(f"Round {r['position']}: {r['label']}")
        line(f"Interviewer {r['interviewer'] or '-'}; {r['state']}")
        if not r["visible"]:
            line(HIDDEN_WORDS.get(r["hidden"], "Closed."))
            continue
        if r["waiting"]:
            line(f"{r['waiting']} other scorecard(s) open once yours is submitted.")
        for row in r["outcome"]:
            line(f"  {row['title']}: {row['level']} / 4 - {row['anchor']}")
            for chip in row["evidence"]:
                line(f"      - {chip['label']}")
        for card in r["cards"]:
            pdf.set_font("Helvetica", "B", 10)
            line(f"{card['interviewer']}: {card['recommendation_label'] or '-'}")
            pdf.set_font("Helvetica", "", 10)
            if card["summary"]:
                line(card["summary"])
            for score in card["scores"].values():
                line(f"  {score['title']}: {score['level'] or '-'} {score['comment']}")
        if r["integrity"]:
            line(f"Integrity: {r['integrity']['note']}")
        if r["copied"]:
            copied = r["copied"]
            where = (f"the known solution {copied['known']}" if copied["known"] else
                     f"{copied['other_name']}'s submission" if copied["other_named"]
                     else "another candidate's submission")
            line(f"Similar code: {copied['percent']}% of the final submission's fingerprints "
                 f"are in {where} (a prompt to look, not a verdict).")
    heading("Strengths and concerns by criterion")
    for row in data["by_criterion"]:
        pdf.set_font("Helvetica", "B", 10)
        line(row["criterion"])
        pdf.set_font("Helvetica", "", 10)
        for side, word in (("strengths", "+"), ("concerns", "-")):
            for item in row[side]:
                line(f"  {word} round {item['round']}, {item['interviewer']} "
                     f"({item['level']}/4): {item['comment']}")
    if not data["by_criterion"]:
        line("Nothing scored yet.")
    debrief = data.get("debrief")
    if debrief:
        heading("Debrief")
        if debrief["decision"]:
            line(f"Decision: {debrief['decision_label']}"
                 f"{' (final: the loop is closed)' if debrief['closed'] else ''}")
            line(f"Reason: {debrief['reason']}")
        else:
            line("No decision recorded yet.")
        for change in debrief["changes"]:
            line(f"  {moment_in_zone(change['at'], zone)}, {change['by']}: {change['decision']}"
                 f"{' (closed)' if change['closed'] else ''} - {change['reason']}")
    return bytes(pdf.output())
