// Entry point of the session bundle (static/frontend/session.js): the live or solo session
// page (#session) and the interviewer's replay page (#replay).
import htmx from "htmx.org";

import { copyButtonsMount, localTimesRender, scheduleFormMount } from "./cockpit.js";
import { sessionPageMount } from "./page.js";
import { replayPageMount } from "./replay.js";

// htmx drives the server-rendered hint reveal on the session page.
window.htmx = htmx;

function mount() {
  const session = document.getElementById("session");
  if (session) sessionPageMount(session);
  // The session list (schedule form) and the join page.
  const sessions = document.querySelector(".sessions-page, .join-card");
  if (sessions) {
    localTimesRender(sessions);
    copyButtonsMount(sessions);
    scheduleFormMount(document.getElementById("live-form"));
    scheduleFormMount(document.getElementById("reschedule-form"));
  }
  const replay = document.getElementById("replay");
  if (replay) {
    replayPageMount(replay).catch((error) => {
      replay.dataset.error = String(error);
      const status = document.getElementById("replay-status");
      if (status) status.textContent = "Could not load the replay. Reload the page to try again.";
    });
  }
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", mount);
} else {
  mount();
}
