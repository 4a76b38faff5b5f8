// The collapsible site menu on narrow screens: one button toggles the nav and the user links.
// Without JavaScript the menu simply stays open (the page's CSS collapses it only under .js).
(function () {
  document.documentElement.classList.add("js");
  function bind() {
    var button = document.getElementById("nav-toggle");
    var menu = document.getElementById("site-menu");
    if (!button || !menu) return;
    button.addEventListener("click", function () {
      var open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      menu.classList.toggle("open", open);
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && menu.classList.contains("open")) {
        button.setAttribute("aria-expanded", "false");
        menu.classList.remove("open");
        button.focus();
      }
    });
  }
  // A code block wider (or taller) than its box scrolls; a keyboard can scroll only what takes
  // focus (WCAG 2.1.1, issue 40): every <pre> of the page's content is a named Tab stop, the
  // ones htmx swaps in too.
  // A table that scrolls sideways (a statement's, a report's on a phone) is one too.
  var codeBlocks = 0;
  var tables = 0;
  function codeBlocksFocusable(root) {
    var blocks = (root || document).querySelectorAll("main pre:not([tabindex])");
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i].closest(".cm-editor")) continue;
      codeBlocks += 1;  // each region's name is its own (a landmark's name tells it apart)
      blocks[i].setAttribute("tabindex", "0");
      blocks[i].setAttribute("role", "region");
      blocks[i].setAttribute("aria-label", "Code block " + codeBlocks);
    }
    tablesFocusable(root);
  }
  // The tables that scroll in their own box: a statement's always, every other wide one on a
  // phone (site.css, max-width 640px). They take focus while they can scroll, not otherwise.
  var narrow = window.matchMedia("(max-width: 640px)");
  var WIDE = ".site-main table:not(.problem-list-table):not(.result-tests):not(.shortcut-table)";
  function tablesFocusable(root) {
    var found = (root || document).querySelectorAll(WIDE + ", .site-main .statement table");
    for (var j = 0; j < found.length; j++) {
      var table = found[j];
      var scrolls = narrow.matches || Boolean(table.closest(".statement"));
      if (scrolls && !table.hasAttribute("tabindex")) {
        tables += 1;
        table.setAttribute("tabindex", "0");
        table.dataset.scrollFocus = "true";
        if (!table.getAttribute("aria-label") && !table.querySelector("caption")) {
          table.setAttribute("aria-label", "Table " + tables);
        }
      } else if (!scrolls && table.dataset.scrollFocus === "true") {
        table.removeAttribute("tabindex");
        delete table.dataset.scrollFocus;
      }
    }
  }
  function ready() {
    bind();
    codeBlocksFocusable(document);
    narrow.addEventListener("change", function () { tablesFocusable(document); });
    document.addEventListener("htmx:afterSettle", function (event) {
      codeBlocksFocusable(event.target);
    });
    // Content a page's own script puts in later (a report that fills in when grading ends,
    // a replay's table) gets the same treatment as what came with the page.
    var main = document.querySelector("main");
    if (main && "MutationObserver" in window) {
      new MutationObserver(function (records) {
        for (var r = 0; r < records.length; r++) {
          var added = records[r].addedNodes;
          for (var n = 0; n < added.length; n++) {
            var node = added[n];
            if (node.nodeType !== 1 || node.closest(".cm-editor")) continue;
            if (node.matches("table, pre") || node.querySelector("table, pre")) {
              codeBlocksFocusable(node.parentNode);
            }
          }
        }
      }).observe(main, { childList: true, subtree: true });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
