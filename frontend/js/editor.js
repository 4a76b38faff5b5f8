// The code editor both bundles use: CodeMirror 6 set up for 4-space Python, with the candidate's
// preferences (line wrapping, font size, theme, Vim/Emacs keymap) remembered per user, and a
// per-problem draft in localStorage for the practice page.
//
// The session editor (js/session/page.js) imports `editorExtensions` and `preferencesLoad` from
// here, so both editors indent, wrap and look alike; only this file knows the CodeMirror setup.
import { indentLess, indentMore } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState, Prec } from "@codemirror/state";
import { color as oneDarkColor, oneDarkTheme } from "@codemirror/theme-one-dark";
import { EditorView, keymap } from "@codemirror/view";
import { emacs } from "@replit/codemirror-emacs";
import { vim } from "@replit/codemirror-vim";
import { tags } from "@lezer/highlight";
import { basicSetup } from "codemirror";

const DRAFT_PREFIX = "onsite:draft:";
const PREFS_PREFIX = "onsite:editor-prefs:";
export const INDENT = "    "; // PEP 8: four spaces, never a tab character.
export const FONT_SIZES = [12, 13, 14, 15, 16, 18, 20];
// Wrapping is off by default: long lines scroll, as in most coding pads (and the shared
// session editor's remote-edit tests keep their exact line geometry); one click turns it on.
export const DEFAULT_PREFS = Object.freeze({
  wrap: false,
  fontSize: 14,
  theme: "light",
  keymap: "default",
  // Where the results pane sits on the practice page: beside the editor (three columns),
  // below it (LeetCode's layout), or "auto": below on windows narrower than
  // desk.js's AUTO_BESIDE_MIN_PX, where a third column would squeeze the code. The session
  // page always stacks them under its editor.
  layout: "auto",
});
const THEMES = ["light", "dark"];
const KEYMAPS = ["default", "vim", "emacs"];
const LAYOUTS = ["auto", "beside", "below"];

// The way out of the editor, for keyboard and screen-reader users (CodeMirror's own rule: Tab
// indents, but Esc then Tab moves focus on). One sentence, shown on the page and announced as
// the editor's description.
export const ESCAPE_HINT = "Tab indents. To leave the editor, press Esc, then Tab.";

/**
 * localStorage can throw (private mode, quota, disabled storage); a lost draft or preference
 * must never break the editor, so every access goes through these helpers.
 */
function storageGet(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function storageSet(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Storage full or disabled: the editor keeps working, only remembering is lost.
  }
}

const CUSTOM_PREFIX = "onsite:custom-input:";

/** The custom input a person last typed on this page (`place`: the user and the page), or
 * null; kept in this browser so a reload does not lose it. */
export function customInputLoad(place) {
  return storageGet(CUSTOM_PREFIX + place);
}

/** Remembers (or, with null, forgets) the custom input typed on `place`. */
export function customInputSave(place, text) {
  if (text === null) {
    try {
      window.localStorage.removeItem(CUSTOM_PREFIX + place);
    } catch {
      // Storage disabled: nothing was kept.
    }
    return;
  }
  storageSet(CUSTOM_PREFIX + place, text);
}

/** The settings the server stored for the account (core/editorprefs.py), rendered into the
 * desk as #editor-prefs-data; null when signed out or never changed. */
function serverPreferences() {
  const node = document.getElementById("editor-prefs-data");
  if (!node) return null;
  try {
    const value = JSON.parse(node.textContent || "null");
    return value && typeof value === "object" ? value : null;
  } catch {
    return null;
  }
}

/** The user's preferences: the account's stored copy (any browser), else this browser's copy
 * (keyed by `userKey`); each value checked, defaults elsewhere. */
export function preferencesLoad(userKey) {
  let saved = serverPreferences();
  if (!saved) {
    try {
      saved = JSON.parse(storageGet(PREFS_PREFIX + userKey) || "{}") || {};
    } catch {
      saved = {};
    }
  }
  return {
    wrap: typeof saved.wrap === "boolean" ? saved.wrap : DEFAULT_PREFS.wrap,
    fontSize: FONT_SIZES.includes(saved.fontSize) ? saved.fontSize : DEFAULT_PREFS.fontSize,
    theme: THEMES.includes(saved.theme) ? saved.theme : DEFAULT_PREFS.theme,
    keymap: KEYMAPS.includes(saved.keymap) ? saved.keymap : DEFAULT_PREFS.keymap,
    layout: LAYOUTS.includes(saved.layout) ? saved.layout : DEFAULT_PREFS.layout,
  };
}

/**
 * Keeps `prefs` in this browser and, signed in, for the account (`url`, a JSON POST), so the
 * next browser opens with them. Resolves to true once the server stored them; false when it
 * refused or could not be reached (this browser's copy still stands).
 */
export async function preferencesSave(userKey, prefs, { url = "", csrf = "" } = {}) {
  storageSet(PREFS_PREFIX + userKey, JSON.stringify(prefs));
  if (!url) return false;
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(prefs),
    });
    return response.ok;
  } catch {
    return false;
  }
}

function fontTheme(size) {
  return EditorView.theme({
    "&": { fontSize: `${size}px` },
    ".cm-gutters": { fontSize: `${size}px` },
  });
}

// The dark theme is One Dark with its colours lightened where they fall under 4.5:1 on its
// background and active line (issue 40.4): its grey ("stone", 3.9:1; line numbers, comments),
// its red ("coral", 4.4:1; names) and its violet (keywords, 4.4:1 on the active line). The
// highlight rules are One Dark's own, in its order, with those colours changed.
const DARK = { grey: "#9da5b4", red: "#e8838b", violet: "#d08ee6" };
const darkHighlight = HighlightStyle.define([
  { tag: tags.keyword, color: DARK.violet },
  { tag: [tags.name, tags.deleted, tags.character, tags.propertyName, tags.macroName], color: DARK.red },
  { tag: [tags.function(tags.variableName), tags.labelName], color: oneDarkColor.malibu },
  { tag: [tags.color, tags.constant(tags.name), tags.standard(tags.name)], color: oneDarkColor.whiskey },
  { tag: [tags.definition(tags.name), tags.separator], color: oneDarkColor.ivory },
  {
    tag: [tags.typeName, tags.className, tags.number, tags.changed, tags.annotation,
      tags.modifier, tags.self, tags.namespace],
    color: oneDarkColor.chalky,
  },
  {
    tag: [tags.operator, tags.operatorKeyword, tags.url, tags.escape, tags.regexp, tags.link,
      tags.special(tags.string)],
    color: oneDarkColor.cyan,
  },
  { tag: [tags.meta, tags.comment], color: DARK.grey },
  { tag: tags.strong, fontWeight: "bold" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: tags.link, color: DARK.grey, textDecoration: "underline" },
  { tag: tags.heading, fontWeight: "bold", color: DARK.red },
  { tag: [tags.atom, tags.bool, tags.special(tags.variableName)], color: oneDarkColor.whiskey },
  { tag: [tags.processingInstruction, tags.string, tags.inserted], color: oneDarkColor.sage },
  { tag: tags.invalid, color: oneDarkColor.invalid },
]);
const darkTheme = [
  oneDarkTheme,
  Prec.high(EditorView.theme({ ".cm-gutters": { color: DARK.grey } }, { dark: true })),
  syntaxHighlighting(darkHighlight),
];

function keymapExtension(name) {
  if (name === "vim") return vim();
  if (name === "emacs") return emacs();
  return [];
}

/**
 * CodeMirror's own <style> elements (its themes, through style-mod) carry the page's
 * Content-Security-Policy nonce (core/csp.py; base.html's csp-nonce meta tag): the policy
 * applies no other inline style. Every editor on a page needs it, the read-only ones too.
 */
export function cspNonceExtension() {
  const nonce = document.querySelector('meta[name="csp-nonce"]')?.content;
  return nonce ? EditorView.cspNonce.of(nonce) : [];
}

/**
 * The extensions of a Python editor with `prefs` applied, and `apply(view, prefs)` to change
 * them later. `label` names the editor for screen readers; `describedBy` is the id of the
 * element that carries ESCAPE_HINT.
 */
export function editorExtensions({ prefs = DEFAULT_PREFS, label, describedBy, extraKeys = [] }) {
  const keymapSlot = new Compartment();
  const wrapSlot = new Compartment();
  const fontSlot = new Compartment();
  const themeSlot = new Compartment();
  // tabindex: the scrolling region's content is a Tab stop even where it is read-only.
  const attributes = { "aria-label": label, tabindex: "0" };
  if (describedBy) attributes["aria-describedby"] = describedBy;
  const extensions = [
    cspNonceExtension(),
    // Vim/Emacs go first so their keys win over basicSetup's (their packages' own advice).
    keymapSlot.of(keymapExtension(prefs.keymap)),
    basicSetup,
    python(),
    indentUnit.of(INDENT),
    EditorState.tabSize.of(4),
    // Tab / Shift-Tab indent the line or the whole selection by one unit. CodeMirror leaves
    // Tab to the browser after Esc, which is the announced way out.
    Prec.high(keymap.of([
      ...extraKeys,
      { key: "Tab", run: indentMore, shift: indentLess },
    ])),
    // Esc's way out lasts two seconds in CodeMirror, through any Tab: coming back into the
    // editor ends it, so a Shift+Tab there dedents again instead of leaving (issue 40.2).
    EditorView.domEventObservers({ focus: (event, view) => view.setTabFocusMode(false) }),
    wrapSlot.of(prefs.wrap ? EditorView.lineWrapping : []),
    fontSlot.of(fontTheme(prefs.fontSize)),
    themeSlot.of(prefs.theme === "dark" ? darkTheme : []),
    EditorView.contentAttributes.of(attributes),
  ];
  const apply = (view, next) => {
    view.dispatch({
      effects: [
        keymapSlot.reconfigure(keymapExtension(next.keymap)),
        wrapSlot.reconfigure(next.wrap ? EditorView.lineWrapping : []),
        fontSlot.reconfigure(fontTheme(next.fontSize)),
        themeSlot.reconfigure(next.theme === "dark" ? darkTheme : []),
      ],
    });
    view.dom.dataset.theme = next.theme;
    view.dom.dataset.keymap = next.keymap;
  };
  return { extensions, apply };
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
 * Wires the preference controls inside `form` (inputs named wrap, fontSize, theme, keymap) to
 * `onChange(prefs)`; the form shows `prefs` first.
 */
export function preferencesFormBind(form, prefs, onChange) {
  if (!form) return;
  const current = { ...prefs };
  const fields = form.elements;
  if (fields.wrap) fields.wrap.checked = current.wrap;
  if (fields.fontSize) fields.fontSize.value = String(current.fontSize);
  if (fields.theme) fields.theme.value = current.theme;
  if (fields.keymap) fields.keymap.value = current.keymap;
  if (fields.layout) fields.layout.value = current.layout;
  form.addEventListener("change", () => {
    if (fields.wrap) current.wrap = fields.wrap.checked;
    if (fields.fontSize) current.fontSize = Number(fields.fontSize.value);
    if (fields.theme) current.theme = fields.theme.value;
    if (fields.keymap) current.keymap = fields.keymap.value;
    if (fields.layout) current.layout = fields.layout.value;
    onChange({ ...current });
  });
  form.addEventListener("submit", (event) => event.preventDefault());
}

/**
 * Mounts the practice editor on `parent` and returns a small handle.
 *
 * The draft is saved synchronously on every change (no debounce): a reload straight after
 * typing, or after `setCode` from a test, must still find the latest code.
 */
export function editorMount({ parent, slug, starterCode, prefs, extraKeys = [], describedBy }) {
  const saved = storageGet(DRAFT_PREFIX + slug);
  const setup = editorExtensions({ prefs, label: "Solution code", describedBy, extraKeys });
  const state = EditorState.create({
    doc: saved ?? starterCode,
    extensions: [
      ...setup.extensions,
      EditorView.updateListener.of((update) => {
        if (update.docChanged) storageSet(DRAFT_PREFIX + slug, update.state.doc.toString());
      }),
    ],
  });
  const view = new EditorView({ state, parent });

  return {
    view,
    apply: setup.apply,
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
