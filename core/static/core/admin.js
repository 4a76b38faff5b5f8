// Names for the Django admin's controls that its own widgets and scripts leave unnamed
// (issue 40.1; loaded by templates/admin/base_site.html, audited by tests/e2e/test_a11y.py):
//
// - a date-and-time field's two inputs (the label of a split widget points at neither);
// - the autocomplete's select2 box (a combobox labelled by an empty text box when nothing is
//   chosen);
// - the filter-horizontal widget's search icons (an aria-label on a span with no role).
//
// The admin builds the last two after the page loads, so they are named as they appear.
"use strict";

(() => {
  const fieldLabel = (row) => {
    const label = row && row.querySelector("label");
    return label ? label.textContent.trim().replace(/:$/, "") : "";
  };

  const nameDateTimes = (root) => {
    for (const box of root.querySelectorAll("p.datetime")) {
      const field = fieldLabel(box.closest(".form-row, .fieldBox, td"));
      const [date, time] = box.querySelectorAll("input");
      if (date && !date.hasAttribute("aria-label")) {
        date.setAttribute("aria-label", field ? `${field}: date` : "Date");
      }
      if (time && !time.hasAttribute("aria-label")) {
        time.setAttribute("aria-label", field ? `${field}: time` : "Time");
      }
    }
  };

  const nameAutocompletes = (root) => {
    for (const select of root.querySelectorAll("select.admin-autocomplete[id]")) {
      const label = document.querySelector(`label[for="${CSS.escape(select.id)}"]`);
      const name = label ? label.textContent.trim().replace(/:$/, "") : select.name;
      const box = document.getElementById(`select2-${select.id}-container`);
      if (box && !box.hasAttribute("aria-label")) box.setAttribute("aria-label", name);
    }
  };

  const nameIcons = (root) => {
    for (const icon of root.querySelectorAll("span.help-tooltip[aria-label]:not([role])")) {
      icon.setAttribute("role", "img");
    }
  };

  const name = () => {
    nameDateTimes(document);
    nameAutocompletes(document);
    nameIcons(document);
  };

  const start = () => {
    name();
    new MutationObserver(name).observe(document.body, { childList: true, subtree: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
