// Times in the viewer's own zone, the zone named: `<time class="local-time" datetime=ISO>`
// (the server writes UTC, and says so, for a page read without scripts). The dashboard's
// filter form also sends the zone, so its dates are the viewer's days; the report's PDF link
// asks for it, so the PDF's times are the viewer's too. A static file, not an
// inline script: the Content-Security-Policy (core/csp.py) runs no inline script.
(() => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const format = new Intl.DateTimeFormat([], {
    day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23", timeZoneName: "short",
  });
  for (const node of document.querySelectorAll("time.local-time[datetime]")) {
    const date = new Date(node.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    node.textContent = format.format(date);
    node.title = `${zone} (${node.getAttribute("datetime")})`;
  }
  for (const input of document.querySelectorAll("input[data-viewer-zone]")) input.value = zone;
  // A link whose page is drawn on the server (the report's PDF): it asks for the viewer's zone.
  for (const link of document.querySelectorAll("a[data-viewer-zone-link]")) {
    const url = new URL(link.getAttribute("href"), window.location.href);
    url.searchParams.set("tz", zone);
    link.setAttribute("href", url.pathname + url.search);
  }
  for (const label of document.querySelectorAll("[data-zone-name]")) label.textContent = zone;
})();
