// Entry point of the bundle loaded by the problem page (frontend/templates/frontend/problem_detail.html).
//
// Page contract: #problem carries data-slug and data-api-url; #editor is where CodeMirror
// mounts; #starter-code is a JSON string; #run-button / #submit-button / #reset-button; the
// results panel is #results (see results.js for its children).
import htmx from "htmx.org";

import { editorMount, starterCodeRead } from "./editor.js";
import { GraderError, submissionCreate, submissionFollow } from "./grader.js";
import { ResultsPanel } from "./results.js";

// htmx drives the small server-rendered pieces (the hint reveal); exposing it lets its
// attributes and extensions find it, as the plain script tag would.
window.htmx = htmx;

function problemPageMount() {
  const problem = document.getElementById("problem");
  const editorParent = document.getElementById("editor");
  if (!problem || !editorParent) return;

  const slug = problem.dataset.slug;
  const apiUrl = problem.dataset.apiUrl || "/api/submissions";
  const starterCode = starterCodeRead();
  const runButton = document.getElementById("run-button");
  const submitButton = document.getElementById("submit-button");
  const resetButton = document.getElementById("reset-button");
  const panel = new ResultsPanel(document.getElementById("results"));

  let current = null; // The submission being followed; a new click abandons it.

  const setBusy = (busy) => {
    for (const button of [runButton, submitButton]) if (button) button.disabled = busy;
    problem.dataset.busy = busy ? "true" : "false";
  };

  const start = async (mode) => {
    if (current) current.stop();
    current = null;
    panel.reset(mode);
    setBusy(true);
    let id;
    try {
      id = await submissionCreate({ apiUrl, slug, code: editor.getCode(), mode });
    } catch (error) {
      panel.fail(error instanceof GraderError ? error.message : "Something went wrong.");
      setBusy(false);
      return;
    }
    problem.dataset.submission = String(id);
    const follower = submissionFollow({
      id,
      apiUrl,
      onEvent: (event) => {
        if (current !== follower) return; // A stale socket from an earlier click.
        panel.handle(event);
        if (event.type === "done" || (event.type === "status" && event.status === "failed")) {
          setBusy(false);
        }
      },
      onError: (message) => {
        if (current !== follower) return;
        panel.fail(message);
        setBusy(false);
      },
    });
    current = follower;
  };

  const editor = editorMount({
    parent: editorParent,
    slug,
    starterCode,
    extraKeys: [
      { key: "Mod-Enter", run: () => (runButton?.disabled || start("run"), true) },
      { key: "Mod-Shift-Enter", run: () => (submitButton?.disabled || start("submit"), true) },
    ],
  });

  runButton?.addEventListener("click", () => start("run"));
  submitButton?.addEventListener("click", () => start("submit"));
  resetButton?.addEventListener("click", () => {
    if (window.confirm("Replace your code with the starter code?")) editor.reset();
  });

  // A small, stable handle for tests and for the later collaborative-editing binding.
  window.onsiteEditor = {
    getCode: editor.getCode,
    setCode: editor.setCode,
    view: editor.view,
  };
  problem.dataset.ready = "true";
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", problemPageMount);
} else {
  problemPageMount();
}
