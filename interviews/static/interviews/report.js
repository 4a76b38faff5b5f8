// A report opened while the final submission still grades (interviews/templates/interviews/
// review/report.html, `#report[data-grading]`): the page asks for itself again every few
// seconds, and once the answer no longer says "grading", it shows it (a reload, so every part
// of the page, its times and links included, is drawn as on a first visit). A static file,
// not an inline script: the Content-Security-Policy (core/csp.py) runs no inline script.
(() => {
  const report = document.getElementById("report");
  if (!report || report.dataset.grading !== "true") return;
  const FIRST_MS = 3000;
  const LONGEST_MS = 30000; // a grader that is down for long is asked less often
  const STEADY_CHECKS = 20; // every 3 s for the first minute, then less often
  let wait = FIRST_MS;
  let checks = 0;
  const check = async () => {
    try {
      const response = await fetch(window.location.href, {
        credentials: "same-origin",
        headers: { Accept: "text/html" },
        cache: "no-store",
      });
      if (response.ok) {
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.getElementById("report");
        if (fresh && fresh.dataset.grading !== "true") {
          window.location.reload();
          return;
        }
      }
    } catch {
      // Offline for a moment: ask again later.
    }
    checks += 1;
    if (checks > STEADY_CHECKS) wait = Math.min(wait * 1.5, LONGEST_MS);
    setTimeout(check, wait);
  };
  setTimeout(check, wait);
})();
