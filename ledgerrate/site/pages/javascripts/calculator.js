// Cost at my volume: items per month × the published cost per successful outcome (CPO) of
// each rate-card line. The CPOs are the page's own data- attributes (decimal strings as
// published); nothing is fetched and nothing typed leaves the page.
(function () {
  "use strict";

  function money(value) {
    if (!isFinite(value)) return "—";
    var abs = Math.abs(value);
    var text = abs !== 0 && abs < 0.01
      ? "$" + abs.toFixed(Math.min(20, 2 - Math.floor(Math.log10(abs))))
      : "$" + abs.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    return (value < 0 ? "−" : "") + text;
  }

  // Why a column has no total when no job has a figure in it.
  var NONE = {
    cheapest: "no job has a qualifying model",
    flagship: "no job has a flagship figure",
    difference: "no job has both a qualifying and a flagship figure",
    reference: "no job has a reference baseline figure",
  };

  function cpo(row, which) {
    var raw = row.getAttribute("data-" + which + "-cpo");
    return raw === "" || raw === null ? null : parseFloat(raw);
  }

  function update(form) {
    var totals = { cheapest: 0, flagship: 0, difference: 0, reference: 0 };
    // How many jobs have a figure in each column: a total over none is no total at all (a
    // "$0.00" there would read as "costs nothing"), and one over some says so.
    var counted = { cheapest: 0, flagship: 0, difference: 0, reference: 0 };
    var rows = 0;
    form.querySelectorAll("tbody tr").forEach(function (row) {
      rows += 1;
      var input = row.querySelector("input");
      var volume = Math.max(0, parseFloat(input.value) || 0);
      var values = {
        cheapest: cpo(row, "cheapest"),
        flagship: cpo(row, "flagship"),
        reference: cpo(row, "reference"),
      };
      ["cheapest", "flagship", "reference"].forEach(function (which) {
        var out = row.querySelector('[data-out="' + which + '"]');
        if (!out.hasAttribute("data-label")) out.setAttribute("data-label", out.innerHTML);
        if (values[which] === null) return;
        var cost = volume * values[which];
        totals[which] += cost;
        counted[which] += 1;
        out.innerHTML = "";
        var strong = document.createElement("strong");
        strong.textContent = money(cost);
        strong.setAttribute("data-cost", String(cost));
        out.appendChild(strong);
        out.appendChild(document.createElement("br"));
        var small = document.createElement("small");
        small.innerHTML = out.getAttribute("data-label");
        out.appendChild(small);
      });
      var diff = row.querySelector('[data-out="difference"]');
      if (values.cheapest !== null && values.flagship !== null) {
        var d = volume * (values.flagship - values.cheapest);
        totals.difference += d;
        counted.difference += 1;
        diff.textContent = money(d);
        diff.setAttribute("data-cost", String(d));
      } else {
        diff.textContent = "—";
      }
    });
    Object.keys(totals).forEach(function (which) {
      var cell = form.querySelector('[data-total="' + which + '"]');
      if (!cell) return;
      if (counted[which] === 0) {
        cell.textContent = "— (" + (NONE[which] || "no job has a figure") + ")";
        cell.removeAttribute("data-cost");
        return;
      }
      cell.textContent = money(totals[which]) + (counted[which] === rows ? ""
        : " (" + counted[which] + " of " + rows + " jobs; the others have no figure)");
      cell.setAttribute("data-cost", String(totals[which]));
    });
  }

  function init() {
    document.querySelectorAll("form.lr-calc").forEach(function (form) {
      if (form.getAttribute("data-ready")) return;
      form.setAttribute("data-ready", "1");
      form.addEventListener("input", function () { update(form); });
      // Enter in a field must not reload the page (the form has no action: nothing is sent).
      form.addEventListener("submit", function (event) { event.preventDefault(); });
      update(form);
    });
  }

  if (typeof document$ !== "undefined" && document$.subscribe) {
    document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
