// Names and focus the theme leaves out, for readers of assistive technology: the search dialog
// gets a name, and a wide table's scroll box (which the theme wraps around each table) can be
// reached and scrolled from the keyboard, with a name saying what it holds.
(function () {
  "use strict";

  function fix() {
    document.querySelectorAll('.md-search[role="dialog"]').forEach(function (dialog) {
      if (!dialog.hasAttribute("aria-label")) dialog.setAttribute("aria-label", "Search the site");
    });
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (box) {
      if (box.hasAttribute("tabindex")) return;
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      var caption = box.querySelector("caption");
      box.setAttribute("aria-label", caption ? caption.textContent.trim() : "Table (scrolls sideways)");
    });
  }

  if (typeof document$ !== "undefined" && document$.subscribe) {
    // After the theme's own handlers, which wrap the tables on each page load.
    document$.subscribe(function () { setTimeout(fix, 0); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fix);
  } else {
    fix();
  }
})();
