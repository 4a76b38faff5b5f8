// The review page (interviews/templates/interviews/review/review.html): the scorecard's
// autosave and its evidence chips. A static file, not an inline script: the
// Content-Security-Policy (core/csp.py) runs no inline script.
// The draft saves itself (an X-Autosave POST, never a submit) a moment after each change.
(() => {
  const form = document.querySelector("form[data-autosave]");
  const status = document.getElementById("autosave-status");
  if (!form) return;
  // Not form.action: the submit buttons are named "action" and shadow the property.
  let timer = null;
  const save = async () => {
    timer = null;
    const body = new FormData(form);
    body.set("action", "save");
    try {
      const response = await fetch(form.getAttribute("action"), {method: "POST", body, credentials: "same-origin",
        headers: {"X-Autosave": "1", "Accept": "application/json"}});
      const answer = await response.json().catch(() => ({}));
      if (response.ok) {
        status.textContent = "Draft saved at " + new Date(answer.saved_at).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", hourCycle: "h23"}) + ".";
        status.dataset.state = "saved";
      } else {
        status.textContent = "Not saved: " + (answer.detail || response.status);
        status.dataset.state = "error";
      }
    } catch {
      status.textContent = "Not saved: the server is unreachable.";
      status.dataset.state = "error";
    }
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(save, 1200); };
  // Back from the replay (another tab) with nothing unsaved here: take the chips the replay
  // added from the server, so the next autosave does not drop them.
  document.addEventListener("visibilitychange", async () => {
    if (document.visibilityState !== "visible" || timer !== null) return;
    const response = await fetch(window.location.pathname, {credentials: "same-origin"});
    if (!response.ok || timer !== null) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const list of form.querySelectorAll("ul.evidence-chips")) {
      const name = CSS.escape(list.dataset.criterion);
      const other = fresh.querySelector(`ul.evidence-chips[data-criterion="${name}"]`);
      if (other) list.replaceChildren(...Array.from(other.childNodes));
    }
  });
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  form.addEventListener("cite", later);
})();
// Evidence chips. "cite" adds the moment, run or question beside it to the criterion being
// scored (the one last clicked or focused; the first until then) as a chip with a hidden
// input; × removes it. The form posts the chips' inputs, the autosave included.
(() => {
  const fieldsets = Array.from(document.querySelectorAll(".scorecard-form fieldset.criterion"));
  if (!fieldsets.length) return;
  let target = fieldsets[0];
  const choose = (fieldset) => {
    target = fieldset;
    for (const f of fieldsets) f.classList.toggle("cite-target", f === fieldset);
  };
  choose(fieldsets[0]);
  for (const fieldset of fieldsets) {
    fieldset.addEventListener("focusin", () => choose(fieldset));
    fieldset.addEventListener("click", () => choose(fieldset));
  }
  const changed = (form) => form?.dispatchEvent(new Event("cite"));
  document.addEventListener("click", (event) => {
    const remove = event.target.closest("button.chip-remove");
    if (remove) {
      const form = remove.closest("form");
      remove.closest("li.chip").remove();
      changed(form);
    }
  });
  const chip = (list, token, label, href) => {
    const item = document.createElement("li");
    item.className = "chip";
    item.dataset.token = token;
    const text = document.createElement(href ? "a" : "span");
    text.className = href ? "evidence-link" : "chip-label";
    if (href) text.href = href;
    text.textContent = label;
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = `evidence-${list.dataset.criterion}`;
    input.value = token;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "chip-remove";
    remove.title = "Remove";
    remove.setAttribute("aria-label", `Remove ${label}`);
    remove.textContent = "×";
    item.append(text, input, remove);
    return item;
  };
  for (const button of document.querySelectorAll("button.cite")) {
    button.addEventListener("click", () => {
      const list = target.querySelector("ul.evidence-chips");
      const token = button.dataset.evidence;
      if (!list.querySelector(`li.chip[data-token="${CSS.escape(token)}"]`)) {
        list.append(chip(list, token, button.dataset.label, button.dataset.href));
        changed(target.form);
      }
      target.scrollIntoView({block: "nearest"});
    });
  }
})();
