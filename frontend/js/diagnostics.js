// Marks the line a Run's error points at in the editor: a red marker in the gutter and the
// line underlined, with the error's message on hover (CodeMirror's lint extension). The
// grader finds the line (grading/judge.py: error_line, the innermost frame in the candidate's
// file, or a SyntaxError's line); this module only shows it, and clears it on the next run.
//
// It attaches itself to a mounted EditorView (StateEffect.appendConfig), so the editor's own
// setup (editor.js) needs no change for it.
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { StateEffect } from "@codemirror/state";

const installed = new WeakSet();

function install(view) {
  if (installed.has(view)) return;
  installed.add(view);
  view.dispatch({ effects: StateEffect.appendConfig.of(lintGutter()) });
}

/** The diagnostic for 1-based `line` of `doc`, or null when the document has no such line. */
export function lineDiagnostic(doc, line, message) {
  if (!Number.isInteger(line) || line < 1 || line > doc.lines) return null;
  const { from, to } = doc.line(line);
  return { from, to, severity: "error", message: String(message || "error"), source: "Run" };
}

/** Shows `message` at `line` (1-based) of the editor, replacing any earlier mark. */
export function errorLineMark(view, line, message) {
  if (!view) return false;
  const diagnostic = lineDiagnostic(view.state.doc, line, message);
  install(view);
  view.dispatch(setDiagnostics(view.state, diagnostic ? [diagnostic] : []));
  if (diagnostic) view.dom.dataset.errorLine = String(line);
  else delete view.dom.dataset.errorLine;
  return Boolean(diagnostic);
}

/** Removes the mark (a new run started, or the code was reset). */
export function errorLineClear(view) {
  if (!view || !installed.has(view)) return;
  view.dispatch(setDiagnostics(view.state, []));
  delete view.dom.dataset.errorLine;
}
