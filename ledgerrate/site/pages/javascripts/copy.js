// Data pages show the first 12 hex digits of each sha256; a click copies the full hash.
document.addEventListener("click", function (event) {
  var el = event.target.closest ? event.target.closest("[data-copy]") : null;
  if (!el || !navigator.clipboard) return;
  navigator.clipboard.writeText(el.getAttribute("data-copy")).then(function () {
    el.classList.add("lr-copied");
    setTimeout(function () { el.classList.remove("lr-copied"); }, 1200);
  });
});
