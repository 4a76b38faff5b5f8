// Entry point of the bundle loaded by the problem page (frontend/templates/frontend/problem_detail.html).
//
// Page contract: #problem carries data-slug, data-api-url and data-user-key (whose preferences
// and pane widths to remember); #editor is where CodeMirror mounts; #starter-code and
// #custom-example are JSON (json_script); #run-button / #submit-button / #reset-button; the
// results pane has the tabs #tab-tests / #tab-custom / #tab-console over #results (see
// results.js), #custom-panel (#custom-input, #custom-run-button, #custom-output) and
// #console-panel (#script-run-button, #console-output); #editor-prefs is the settings form.
import htmx from "htmx.org";

import {
  FONT_SIZES,
  editorMount,
  preferencesFormBind,
  starterCodeRead,
} from "./editor.js";
import { errorLineClear, errorLineMark } from "./diagnostics.js";
import { GraderError, idempotencyKey, submissionCreate, submissionFollow } from "./grader.js";
import { splittersBind, tabsBind } from "./layout.js";
import { ResultsPanel } from "./results.js";
import { ScratchPanel, jsonFormat } from "./scratch.js";

// htmx drives the small server-rendered pieces (the hint reveal); exposing it lets its
// attributes and extensions find it, as the plain script tag would.
window.htmx = htmx;

function jsonRead(elementId) {
  const element = document.getElementById(elementId);
  if (!element) return null;
  try {
    return JSON.parse(element.textContent || "null");
  } catch {
    return null;
  }
}

function fontSizeOptionsFill(form) {
  const select = form?.elements.fontSize;
  if (!select) return;
  select.replaceChildren(
    ...FONT_SIZES.map((size) => new Option(`${size} px`, String(size))),
  );
}

function problemPageMount() {
  const problem = document.getElementById("problem");
  const editorParent = document.getElementById("editor");
  if (!problem || !editorParent) return;

  const slug = problem.dataset.slug;
  const apiUrl = problem.dataset.apiUrl || "/api/submissions";
  const userKey = problem.dataset.userKey || "anonymous";
  const runButton = document.getElementById("run-button");
  const submitButton = document.getElementById("submit-button");
  const resetButton = document.getElementById("reset-button");
  const customButton = document.getElementById("custom-run-button");
  const scriptButton = document.getElementById("script-run-button");
  const customInput = document.getElementById("custom-input");
  const customError = document.getElementById("custom-input-error");
  // The line a Run's error points at is marked in the editor's gutter (diagnostics.js).
  const marks = {
    onErrorLine: (line, message) => errorLineMark(editor?.view, line, message),
    onClear: () => errorLineClear(editor?.view),
  };
  const panels = {
    run: new ResultsPanel(document.getElementById("results"), marks),
    custom: new ScratchPanel(document.getElementById("custom-output"), "custom", marks),
    script: new ScratchPanel(document.getElementById("console-output"), "script", marks),
  };
  panels.submit = panels.run;
  const tabFor = { run: "tab-tests", submit: "tab-tests", custom: "tab-custom", script: "tab-console" };
  const tablist = document.querySelector(".results-pane [role=tablist]");
  const selectTab = tablist ? tabsBind(tablist) : () => {};
  splittersBind(problem, userKey);

  const example = jsonRead("custom-example");
  const exampleText = example === null ? "" : jsonFormat(example);
  if (customInput) customInput.value = exampleText;

  let current = null; // The submission being followed; a new click abandons it.
  // A click whose request is still on its way: a second click (a double click) is ignored,
  // whatever the buttons' state; the request's Idempotency-Key covers what slips past.
  let creating = false;
  const buttons = [runButton, submitButton, customButton, scriptButton];
  const setBusy = (busy) => {
    for (const button of buttons) if (button) button.disabled = busy;
    problem.dataset.busy = busy ? "true" : "false";
  };

  const customInputRead = () => {
    try {
      const value = JSON.parse(customInput?.value || "");
      customError.hidden = true;
      return { ok: true, value };
    } catch (error) {
      customError.hidden = false;
      customError.textContent = `The input is not valid JSON: ${error.message}`;
      return { ok: false };
    }
  };

  const start = async (mode) => {
    if (creating) return;
    let input;
    if (mode === "custom") {
      const parsed = customInputRead();
      selectTab(tabFor.custom);
      if (!parsed.ok) return;
      input = parsed.value;
    }
    if (current) current.stop();
    current = null;
    const panel = panels[mode];
    selectTab(tabFor[mode]);
    panel.reset(mode);
    setBusy(true);
    creating = true;
    let id;
    try {
      id = await submissionCreate({
        apiUrl, slug, code: editor.getCode(), mode, input, key: idempotencyKey(),
      });
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

  const guarded = (button, mode) => () => (button?.disabled || start(mode), true);
  const editor = editorMount({
    parent: editorParent,
    slug,
    starterCode: starterCodeRead(),
    userKey,
    describedBy: "editor-escape-hint",
    extraKeys: [
      { key: "Mod-Enter", run: guarded(runButton, "run") },
      { key: "Mod-Shift-Enter", run: guarded(submitButton, "submit") },
      { key: "Mod-'", run: guarded(customButton, "custom") },
    ],
  });

  const prefsForm = document.getElementById("editor-prefs");
  fontSizeOptionsFill(prefsForm);
  preferencesFormBind(prefsForm, editor.prefs, (prefs) => {
    editor.setPrefs(prefs);
    document.body.dataset.editorTheme = prefs.theme;
  });
  document.body.dataset.editorTheme = editor.prefs.theme;

  runButton?.addEventListener("click", () => start("run"));
  submitButton?.addEventListener("click", () => start("submit"));
  customButton?.addEventListener("click", () => start("custom"));
  scriptButton?.addEventListener("click", () => start("script"));
  document.getElementById("custom-reset-button")?.addEventListener("click", () => {
    if (customInput) customInput.value = exampleText;
    if (customError) customError.hidden = true;
  });
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
