// The candidate's waiting room (interviews/templates/interviews/join.html): the start in the
// browser's own time zone, naming the zone, a countdown to when the link opens, and a reload
// at that moment (the server decides; the page only asks again). A static file, not an
// inline script: the Content-Security-Policy (core/csp.py) runs no inline script.
(() => {
  const room = document.getElementById("waiting-room");
  const start = document.getElementById("waiting-start");
  if (!room || !start) return;
  const moment = new Date(start.getAttribute("datetime"));
  if (!Number.isNaN(moment.getTime())) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    start.textContent = new Intl.DateTimeFormat(undefined, {
      weekday: "long", day: "numeric", month: "long", year: "numeric",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: zone,
    }).format(moment);
    const named = new Intl.DateTimeFormat(undefined, { timeZone: zone, timeZoneName: "long" })
      .formatToParts(moment).find((part) => part.type === "timeZoneName");
    const label = document.getElementById("waiting-zone");
    if (label) label.textContent = named && named.value !== zone ? `${named.value} (${zone})` : zone;
  }
  // Counted from the server's own "seconds left" on this page's load, not the browser's clock:
  // a clock set wrong neither opens early nor reloads in a loop.
  const left = Number(room.dataset.secondsLeft || "0");
  const opensAt = performance.now() + left * 1000;
  const countdown = document.getElementById("waiting-countdown");
  const say = () => {
    const seconds = Math.max(0, Math.round((opensAt - performance.now()) / 1000));
    const total = Math.ceil(seconds / 60);
    const days = Math.floor(total / 1440);
    const hours = Math.floor((total % 1440) / 60);
    const minutes = total % 60;
    let text;
    if (days > 0) text = `${days} d ${hours} h`;
    else if (hours > 0) text = `${hours} h ${minutes} min`;
    else if (seconds > 60) text = `${minutes} min`;
    else text = "less than a minute";
    if (countdown) countdown.textContent = ` · in ${text}`;
  };
  say();
  setInterval(say, 15000);
  // setTimeout's longest wait is ~24 days; a page left open that long reloads then.
  setTimeout(() => window.location.reload(), Math.min(left * 1000 + 1000, 2 ** 31 - 1));
})();
