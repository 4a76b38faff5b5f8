// The code editor: CodeMirror 6 with Python support, and a per-problem draft in localStorage.
import { basicSetup } from "codemirror";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";

const DRAFT_PREFIX = "onsite:draft:";

/**
 * localStorage can throw (private mode, quota, disabled storage); a lost draft must never
 * break the editor, so every access goes through these two helpers.
 */
function draftLoad(slug) {
  try {
    return window.localStorage.getItem(DRAFT_PREFIX + slug);
  } catch {
    return null;
  }
}

function draftSave(slug, code) {
  try {
    window.localStorage.setItem(DRAFT_PREFIX + slug, code);
  } catch {
    // Storage full or disabled: the code stays in the editor, only reload-survival is lost.
  }
}

/** Reads the starter code that the page embeds with Django's json_script filter. */
export function starterCodeRead(elementId = "starter-code") {
  const element = document.getElementById(elementId);
  if (!element) return "";
  try {
    const value = JSON.parse(element.textContent || '""');
    return typeof value === "string" ? value : "";
  } catch {
    return "";
  }
}

/**
 * Mounts the editor on `parent` and returns a small handle.
 *
 * The draft is saved synchronously on every change (no debounce): a reload straight after
 * typing, or after `setCode` from a test, must still find the latest code.
 */
export function editorMount({ parent, slug, starterCode, extraKeys = [] }) {
  const saved = draftLoad(slug);
  const state = EditorState.create({
    doc: saved ?? starterCode,
    extensions: [
      basicSetup,
      python(),
      keymap.of([...extraKeys, indentWithTab]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) draftSave(slug, update.state.doc.toString());
      }),
      EditorView.contentAttributes.of({ "aria-label": "Solution code" }),
    ],
  });
  const view = new EditorView({ state, parent });

  return {
    view,
    getCode: () => view.state.doc.toString(),
    setCode: (code) => {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: String(code) },
        selection: { anchor: 0 },
      });
    },
    reset: () => {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: starterCode } });
    },
  };
}
