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
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bind);
  else bind();
})();
