// Entry point of the bundle loaded by the problem page (frontend/templates/frontend/problem_detail.html).
//
// Page contract: #problem carries data-slug, data-api-url, data-user-key (whose pane widths
// to remember) and, on an author's try-out, data-version; #starter-code is JSON (json_script);
// #reset-button; the rest is the desk (frontend/templates/frontend/_desk.html, js/desk.js),
// whose editor mounts in #editor.
import htmx from "htmx.org";

import { Desk } from "./desk.js";
import { editorMount, starterCodeRead } from "./editor.js";
import { GraderError, submissionCreate, submissionFollow } from "./grader.js";
import { splittersBind } from "./layout.js";

// htmx drives the small server-rendered pieces (the hint reveal); exposing it lets its
// attributes and extensions find it, as the plain script tag would.
window.htmx = htmx;

function problemPageMount() {
  const problem = document.getElementById("problem");
  const editorParent = document.getElementById("editor");
  const deskRoot = document.getElementById("desk");
  if (!problem || !editorParent || !deskRoot) return;

  const slug = problem.dataset.slug;
  const apiUrl = problem.dataset.apiUrl || "/api/submissions";
  const userKey = problem.dataset.userKey || "anonymous";
  const desk = new Desk(deskRoot);
  // An author trying one version (the studio's candidate view): runs grade on that version,
  // and its editor keeps a draft of its own, apart from the live problem's.
  const version = problem.dataset.version || "";
  splittersBind(problem, userKey);

  let current = null; // The submission being followed; a new click abandons it.
  // A click whose request is still on its way: a second click (a double click) is ignored,
  // whatever the buttons' state; the request's Idempotency-Key (grader.js) covers the rest.
  let creating = false;
  const setBusy = (busy) => {
    desk.setBusy(busy);
    problem.dataset.busy = busy ? "true" : "false";
  };

  const start = async (mode) => {
    if (creating) return;
    let input;
    if (mode === "custom") {
      const parsed = desk.customInputRead();
      if (!parsed.ok) return;
      input = parsed.value;
    }
    if (current) current.stop();
    current = null;
    const panel = desk.runBegin(mode);
    setBusy(true);
    creating = true;
    let id;
    try {
      id = await submissionCreate({ apiUrl, slug, code: editor.getCode(), mode, input, version });
    } catch (error) {
      panel.fail(error instanceof GraderError ? error.message : "Something went wrong.");
      setBusy(false);
      return;
    } finally {
      creating = false;
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
    slug: version ? `${slug}@v${version}` : slug,
    starterCode: starterCodeRead(),
    prefs: desk.prefs,
    describedBy: "editor-escape-hint",
    extraKeys: desk.editorKeys(start),
  });
  desk.editorAttach(editor.view, editor.apply);

  document.getElementById("reset-button")?.addEventListener("click", () => {
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
