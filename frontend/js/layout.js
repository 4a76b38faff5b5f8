// The problem page's layout: resizable split panes (statement | editor | results) and the
// results pane's tabs. Pane widths are remembered per user, like the editor's preferences.
const PANES_PREFIX = "onsite:panes:";
const MIN_PANE_PX = 220;
const STEP_PX = 32;

function widthsLoad(userKey) {
  try {
    const saved = JSON.parse(window.localStorage.getItem(PANES_PREFIX + userKey) || "{}");
    return saved && typeof saved === "object" ? saved : {};
  } catch {
    return {};
  }
}

function widthsSave(userKey, widths) {
  try {
    window.localStorage.setItem(PANES_PREFIX + userKey, JSON.stringify(widths));
  } catch {
    // Not remembered; the layout still works.
  }
}

/**
 * Each `.splitter` resizes the pane named by its data-pane (statement or editor): drag it, or
 * focus it and press ←/→ (Home resets). Widths are CSS variables on `layout`, so the stacked
 * phone layout, which ignores them, needs no script.
 */
export function splittersBind(layout, userKey) {
  const widths = widthsLoad(userKey);
  const apply = () => {
    for (const [pane, px] of Object.entries(widths)) {
      if (typeof px === "number") layout.style.setProperty(`--${pane}-width`, `${px}px`);
      else layout.style.removeProperty(`--${pane}-width`);
    }
  };
  const clamp = (pane, px) => {
    const others = layout.clientWidth - MIN_PANE_PX * 2;
    return Math.round(Math.min(Math.max(px, MIN_PANE_PX), Math.max(MIN_PANE_PX, others)));
  };
  apply();
  for (const splitter of layout.querySelectorAll(".splitter")) {
    const pane = splitter.dataset.pane;
    const target = document.getElementById(splitter.getAttribute("aria-controls"));
    if (!pane || !target) continue;
    // The separator's value (WAI-ARIA: a focusable separator has one) is the pane's share of
    // the layout's width, in percent, as aria-valuemin/max in the template say.
    const announce = () => {
      const whole = layout.clientWidth;
      if (whole <= 0) return;
      const share = Math.round((target.getBoundingClientRect().width / whole) * 100);
      splitter.setAttribute("aria-valuenow", String(Math.min(100, Math.max(0, share))));
    };
    const set = (px) => {
      widths[pane] = clamp(pane, px);
      apply();
      announce();
      widthsSave(userKey, widths);
    };
    announce();
    splitter.addEventListener("pointerdown", (down) => {
      down.preventDefault();
      splitter.setPointerCapture(down.pointerId);
      const startX = down.clientX;
      const startWidth = target.getBoundingClientRect().width;
      layout.dataset.resizing = "true";
      const move = (event) => set(startWidth + event.clientX - startX);
      const up = () => {
        layout.dataset.resizing = "false";
        splitter.removeEventListener("pointermove", move);
        splitter.removeEventListener("pointerup", up);
      };
      splitter.addEventListener("pointermove", move);
      splitter.addEventListener("pointerup", up);
    });
    splitter.addEventListener("keydown", (event) => {
      const width = target.getBoundingClientRect().width;
      if (event.key === "ArrowLeft") set(width - STEP_PX);
      else if (event.key === "ArrowRight") set(width + STEP_PX);
      else if (event.key === "Home") {
        delete widths[pane];
        apply();
        announce();
        widthsSave(userKey, widths);
      } else return;
      event.preventDefault();
    });
  }
}

/** WAI-ARIA tabs: click or ←/→ to switch; returns `select(tabId)` for the page's own use. */
export function tabsBind(tablist) {
  const tabs = [...tablist.querySelectorAll('[role="tab"]')];
  const select = (id, { focus = false } = {}) => {
    for (const tab of tabs) {
      const selected = tab.id === id;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
      const panel = document.getElementById(tab.getAttribute("aria-controls"));
      if (panel) panel.hidden = !selected;
      if (selected && focus) tab.focus();
    }
  };
  for (const [index, tab] of tabs.entries()) {
    tab.addEventListener("click", () => select(tab.id));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      select(tabs[(index + step + tabs.length) % tabs.length].id, { focus: true });
    });
  }
  return select;
}
