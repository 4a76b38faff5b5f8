// The candidate's desk, shared by the practice page (js/main.js) and the live/solo session
// page (js/session/page.js): the toolbar, the editor settings menu, the shortcuts, the layout
// (results beside or below the editor), the results pane's tabs and its three panels (tests,
// custom input, console), and where focus goes around a run.
//
// Page contract (frontend/templates/frontend/_desk.html): #desk carries data-user-key;
// #run-button, #submit-button, #custom-run-button, #script-run-button; #editor-prefs; the
// tabs #tab-tests / #tab-custom / #tab-console over #results, #custom-panel, #console-panel;
// #custom-example is JSON. Each page mounts its own editor (a draft, or the shared document)
// with `desk.editorKeys()` and hands it over with `desk.editorAttach()`.
import { csrfToken } from "./dom.js";
import {
  FONT_SIZES,
  customInputLoad,
  customInputSave,
  preferencesFormBind,
  preferencesLoad,
  preferencesSave,
} from "./editor.js";
import { tabsBind } from "./layout.js";
import { errorLineClear, errorLineMark } from "./diagnostics.js";
import { ResultsPanel } from "./results.js";
import { ScratchPanel, jsonFormat } from "./scratch.js";

// "auto" puts the results beside the editor only from this window width up: below it, a third
// column would leave the editor too narrow for a starter's longest lines.
const AUTO_BESIDE_MIN_PX = 1600;
const TAB_FOR = { run: "tab-tests", submit: "tab-tests", custom: "tab-custom", script: "tab-console" };
const PANEL_FOR_TAB = { "tab-tests": "results", "tab-custom": "custom-panel", "tab-console": "console-panel" };

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
  select.replaceChildren(...FONT_SIZES.map((size) => new Option(`${size} px`, String(size))));
}

function editable(target) {
  return Boolean(target?.closest?.("input, textarea, select, [contenteditable=true], .cm-editor"));
}

/**
 * Menus are <details class="menu">: Esc closes the open one (focus back on its summary), a
 * click outside closes it, and opening one closes the other.
 */
export function menusBind(root) {
  const menus = [...root.querySelectorAll("details.menu")];
  const closeAll = (except) => {
    for (const menu of menus) if (menu !== except) menu.open = false;
  };
  for (const menu of menus) {
    menu.addEventListener("toggle", () => {
      if (menu.open) closeAll(menu);
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const open = menus.find((menu) => menu.open);
    if (!open) return;
    open.open = false;
    open.querySelector("summary")?.focus();
    event.preventDefault();
    event.stopPropagation();
  }, true);
  document.addEventListener("click", (event) => {
    for (const menu of menus) if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  return { closeAll };
}

export class Desk {
  constructor(root) {
    this.root = root;
    this.userKey = root.dataset.userKey || "anonymous";
    this.prefs = preferencesLoad(this.userKey);
    this.buttons = {
      run: document.getElementById("run-button"),
      submit: document.getElementById("submit-button"),
      custom: document.getElementById("custom-run-button"),
      script: document.getElementById("script-run-button"),
    };
    // The line a run's error points at is marked in the editor's gutter (diagnostics.js).
    const marks = {
      onErrorLine: (line, message) => errorLineMark(this.view, line, message),
      onClear: () => errorLineClear(this.view),
    };
    this.panels = {
      run: new ResultsPanel(document.getElementById("results"), marks),
      custom: new ScratchPanel(document.getElementById("custom-output"), "custom", marks),
      script: new ScratchPanel(document.getElementById("console-output"), "script", marks),
    };
    this.panels.submit = this.panels.run;
    this.customInput = document.getElementById("custom-input");
    this.customError = document.getElementById("custom-input-error");
    const example = jsonRead("custom-example");
    this.exampleText = example === null ? "" : jsonFormat(example);
    // What was typed in the box survives a reload (this browser, this user, this page).
    this.customPlace = `${this.userKey}:${window.location.pathname}`;
    const typed = customInputLoad(this.customPlace);
    if (this.customInput) {
      this.customInput.value = typed ?? this.exampleText;
      this.customInput.addEventListener("input", () => {
        const text = this.customInput.value;
        customInputSave(this.customPlace, text === this.exampleText ? null : text);
      });
    }
    document.getElementById("custom-reset-button")?.addEventListener("click", () => {
      if (this.customInput) this.customInput.value = this.exampleText;
      customInputSave(this.customPlace, null);
      if (this.customError) this.customError.hidden = true;
    });
    const tablist = root.querySelector(".results-pane [role=tablist]");
    this.selectTab = tablist ? tabsBind(tablist) : () => {};
    this.tabs = tablist;
    this.menus = menusBind(root);
    this.view = null;
    this.layoutApply(this.prefs.layout);
    this.keysBind();
  }

  /** The editor keys of the desk's actions, for `editorExtensions({extraKeys})`. Each runs
   *  `onAction(mode)` unless that mode's button is disabled (busy, or the session is over). */
  editorKeys(onAction) {
    this.onAction = onAction;
    const guarded = (mode) => () => {
      this.action(mode);
      return true;
    };
    return [
      { key: "Mod-Enter", run: guarded("run") },
      { key: "Mod-Shift-Enter", run: guarded("submit") },
      { key: "Mod-'", run: guarded("custom") },
      { key: "Mod-;", run: guarded("script") },
    ];
  }

  action(mode) {
    const button = this.buttons[mode];
    if (!button || button.disabled || !this.onAction) return;
    this.onAction(mode);
  }

  /**
   * Hands the desk its editor: `view` (a CodeMirror EditorView) and `apply(view, prefs)` from
   * editorExtensions. The settings form then changes it at once and remembers the choice.
   */
  editorAttach(view, apply) {
    this.view = view;
    view.dom.dataset.theme = this.prefs.theme;
    view.dom.dataset.keymap = this.prefs.keymap;
    document.body.dataset.editorTheme = this.prefs.theme;
    const form = document.getElementById("editor-prefs");
    fontSizeOptionsFill(form);
    preferencesFormBind(form, this.prefs, (prefs) => {
      this.prefs = prefs;
      apply(view, prefs);
      this.prefsSave(prefs);
      document.body.dataset.editorTheme = prefs.theme;
      this.layoutApply(prefs.layout);
    });
    for (const mode of Object.keys(this.buttons)) {
      this.buttons[mode]?.addEventListener("click", () => this.action(mode));
    }
  }

  /** Store the settings for the account; a save the server did not take says so in the menu. */
  async prefsSave(prefs) {
    const status = document.getElementById("prefs-status");
    const stored = await preferencesSave(this.userKey, prefs, {
      url: this.root.dataset.prefsUrl || "",
      csrf: csrfToken(),
    });
    if (!status || !this.root.dataset.prefsUrl) return;
    status.hidden = stored;
    status.textContent = stored
      ? ""
      : "Not saved for your account (kept in this browser only); change it again to retry.";
  }

  /** Lays the desk out for the user's choice (beside, below, auto), now and on resize. */
  layoutApply(choice) {
    this.layoutChoice = choice;
    const layout = choice === "auto"
      ? (window.innerWidth >= AUTO_BESIDE_MIN_PX ? "beside" : "below")
      : choice;
    this.root.dataset.layoutChoice = choice;
    this.root.dataset.layout = layout;
    const page = this.root.closest("[data-desk-layout]");
    if (page) page.dataset.deskLayout = layout;
    this.view?.requestMeasure();
    if (!this.resizeBound) {
      this.resizeBound = true;
      window.addEventListener("resize", () => {
        if (this.layoutChoice === "auto") this.layoutApply("auto");
      });
    }
  }

  /** Disables the run buttons while a run is followed (or for good, when `closed`). */
  setBusy(busy, { closed = false } = {}) {
    for (const button of Object.values(this.buttons)) if (button) button.disabled = busy || closed;
    this.root.dataset.busy = busy ? "true" : "false";
  }

  /** The custom input as JSON, or {ok: false} with the reason shown under the box. */
  customInputRead() {
    this.selectTab(TAB_FOR.custom);
    try {
      const value = JSON.parse(this.customInput?.value || "");
      if (this.customError) this.customError.hidden = true;
      return { ok: true, value };
    } catch (error) {
      if (this.customError) {
        this.customError.hidden = false;
        this.customError.textContent = `The input is not valid JSON: ${error.message}`;
      }
      return { ok: false };
    }
  }

  /** Shows what a custom run ran on (a run the other participant started, in a session). */
  customInputShow(value) {
    if (this.customInput && value !== undefined) this.customInput.value = jsonFormat(value);
  }

  /**
   * A run of `mode` starts: its tab comes to the front, its panel is cleared, and focus moves
   * to that panel (the clicked button is about to be disabled, and focus must not fall to
   * the page). Returns the panel that shows its events.
   */
  runBegin(mode, { focus = true } = {}) {
    const panel = this.panels[mode];
    this.selectTab(TAB_FOR[mode]);
    panel.reset(mode);
    if (focus) this.resultsFocus(mode);
    return panel;
  }

  resultsFocus(mode) {
    const tabId = mode ? TAB_FOR[mode] : this.tabs?.querySelector("[aria-selected=true]")?.id;
    const panel = document.getElementById(PANEL_FOR_TAB[tabId] || "results");
    panel?.focus({ preventScroll: false });
  }

  editorFocus() {
    this.view?.focus();
  }

  /** The desk's page-wide keys: back to the editor, Esc out of the results, ? for help. */
  keysBind() {
    const resultsPane = this.root.querySelector(".results-pane");
    document.addEventListener("keydown", (event) => {
      const mod = event.ctrlKey || event.metaKey;
      if (mod && event.shiftKey && event.key.toLowerCase() === "e") {
        event.preventDefault();
        this.editorFocus();
      } else if (event.key === "Escape" && resultsPane?.contains(event.target)
                 && !event.target.closest("textarea, input, select")) {
        event.preventDefault();
        this.editorFocus();
      } else if (event.key === "?" && !mod && !editable(event.target)) {
        const help = this.root.querySelector("details.editor-shortcuts");
        if (!help) return;
        event.preventDefault();
        help.open = true;
        help.querySelector("summary")?.focus();
      }
    });
  }
}
