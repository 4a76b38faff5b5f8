// The studio's small helpers, no bundle needed (CSP: a static file, no inline handlers).
//
// Rows (issue 28.7): a table[data-rows=PREFIX] holds rows whose fields are named
// PREFIX-N-FIELD; [data-row-add=PREFIX] appends a copy of the last row, emptied and
// renumbered; [data-row-remove] removes its row (the last one is emptied instead). The server
// reads whatever rows are posted, so without JavaScript the blank row still adds one.
//
// Line numbers: a textarea[data-lines] gets a gutter of line numbers that follows its scroll,
// so a JSON error's "line 12 column 3" can be found.
(function () {
  "use strict";

  function renumber(table) {
    const prefix = table.dataset.rows;
    table.querySelectorAll("tbody tr[data-row]").forEach(function (row, index) {
      const number = row.querySelector(".row-number");
      if (number) number.textContent = String(index + 1);
      row.querySelectorAll("[name]").forEach(function (field) {
        field.name = field.name.replace(new RegExp("^" + prefix + "-\\d+-"), prefix + "-" + index + "-");
      });
    });
  }

  function emptied(row) {
    row.querySelectorAll("input, textarea").forEach(function (field) {
      if (field.type === "checkbox") field.checked = false;
      else field.value = field.name.endsWith("-weight") ? "1" : "";
    });
    return row;
  }

  document.addEventListener("click", function (event) {
    const add = event.target.closest("[data-row-add]");
    if (add) {
      const table = document.querySelector('table[data-rows="' + add.dataset.rowAdd + '"]');
      const rows = table.querySelectorAll("tbody tr[data-row]");
      const copy = emptied(rows[rows.length - 1].cloneNode(true));
      table.querySelector("tbody").append(copy);
      renumber(table);
      const first = copy.querySelector("input, textarea");
      if (first) first.focus();
      return;
    }
    const remove = event.target.closest("[data-row-remove]");
    if (remove) {
      const row = remove.closest("tr[data-row]");
      const table = row.closest("table[data-rows]");
      if (table.querySelectorAll("tbody tr[data-row]").length > 1) row.remove();
      else emptied(row);
      renumber(table);
    }
  });

  function gutter(textarea) {
    const wrap = document.createElement("div");
    wrap.className = "lined";
    const numbers = document.createElement("pre");
    numbers.className = "line-numbers";
    numbers.setAttribute("aria-hidden", "true");
    textarea.before(wrap);
    wrap.append(numbers, textarea);
    function update() {
      const count = textarea.value.split("\n").length;
      let text = "";
      for (let i = 1; i <= count; i++) text += i + "\n";
      numbers.textContent = text;
      numbers.scrollTop = textarea.scrollTop;
    }
    textarea.addEventListener("input", update);
    textarea.addEventListener("scroll", function () { numbers.scrollTop = textarea.scrollTop; });
    update();
  }

  function ready() {
    document.querySelectorAll("textarea[data-lines]").forEach(gutter);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
