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
  var codeBlocks = 0;
  function codeBlocksFocusable(root) {
    var blocks = (root || document).querySelectorAll("main pre:not([tabindex])");
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i].closest(".cm-editor")) continue;
      codeBlocks += 1;  // each region's name is its own (a landmark's name tells it apart)
      blocks[i].setAttribute("tabindex", "0");
      blocks[i].setAttribute("role", "region");
      blocks[i].setAttribute("aria-label", "Code block " + codeBlocks);
    }
  }
  function ready() {
    bind();
    codeBlocksFocusable(document);
    document.addEventListener("htmx:afterSettle", function (event) {
      codeBlocksFocusable(event.target);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
