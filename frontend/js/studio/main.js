// Entry point of the studio's bundle (studio/templates/studio/base.html): htmx for the
// server-rendered pieces (statement preview, polled validation panels) and a CodeMirror editor
// over each code field.
//
// Page contract: every `<textarea data-code="python">` gets an editor in its place. The
// textarea stays in the form, hidden, and is kept equal to the editor's text on every change,
// so the form posts exactly what it would without JavaScript (and without JavaScript the
// textarea is simply there to type in).
import htmx from "htmx.org";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

import { ESCAPE_HINT, editorExtensions } from "../editor.js";

window.htmx = htmx;

const HINT_ID = "code-editor-hint";

/** The one element that carries the way out of an editor, for aria-describedby. */
function hintEnsure() {
  let hint = document.getElementById(HINT_ID);
  if (!hint) {
    hint = document.createElement("p");
    hint.id = HINT_ID;
    hint.className = "visually-hidden";
    hint.textContent = ESCAPE_HINT;
    document.body.append(hint);
  }
  return hint.id;
}

function labelOf(textarea) {
  const label = textarea.id && document.querySelector(`label[for="${textarea.id}"]`);
  return label ? label.textContent.trim() : textarea.name;
}

/** Mounts an editor over `textarea` (once) and returns its view. */
export function codeEditorMount(textarea) {
  if (textarea.dataset.codeMounted) return null;
  const setup = editorExtensions({ label: labelOf(textarea), describedBy: hintEnsure() });
  const rows = Number(textarea.getAttribute("rows")) || 12;
  const view = new EditorView({
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        ...setup.extensions,
        EditorView.updateListener.of((update) => {
          if (update.docChanged) textarea.value = update.state.doc.toString();
        }),
      ],
    }),
  });
  const frame = document.createElement("div");
  frame.className = "studio-code-editor";
  frame.dataset.codeFor = textarea.name;
  frame.style.setProperty("--code-rows", String(rows));
  frame.append(view.dom);
  textarea.after(frame);
  textarea.hidden = true;
  // The browser cannot focus a hidden control to complain about it; the server checks anyway.
  textarea.required = false;
  textarea.dataset.codeMounted = "true";
  const label = textarea.id && document.querySelector(`label[for="${textarea.id}"]`);
  if (label) label.addEventListener("click", () => view.focus());
  // A form reset puts the textarea back; the editor follows it.
  textarea.form?.addEventListener("reset", () => {
    window.setTimeout(() => {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: textarea.value } });
    });
  });
  return view;
}

export function codeEditorsMount(root = document) {
  for (const textarea of root.querySelectorAll("textarea[data-code]")) {
    codeEditorMount(textarea);
  }
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => codeEditorsMount());
} else {
  codeEditorsMount();
}
