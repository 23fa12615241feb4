// The compare picker: reads the edition's published results-corrected.json from this site and
// puts the chosen models side by side per workload and mode. Every value is written with
// textContent, so nothing read from the file can become markup.
(function () {
  "use strict";

  function usd(value) {
    if (value === null || value === undefined) return null;
    var v = parseFloat(value);
    if (!isFinite(v)) return null;
    // Three significant digits below a cent, written out (no exponent).
    if (v !== 0 && Math.abs(v) < 0.01) return "$" + v.toFixed(Math.min(20, 2 - Math.floor(Math.log10(Math.abs(v)))));
    return "$" + v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 });
  }

  function interval(ci, money) {
    if (!ci || ci.lo === null || ci.hi === null) return "";
    var lo = money ? usd(ci.lo) : parseFloat(ci.lo).toFixed(2);
    var hi = money ? usd(ci.hi) : parseFloat(ci.hi).toFixed(2);
    return " [" + lo + ", " + hi + "]";
  }

  function passText(c) {
    if (c.pending_judge) return "awaiting judge — not counted";
    if (c.pass_rate === null) return "withdrawn or not graded";
    return c.passes + "/" + c.n + " = " + c.pass_rate.toFixed(2) + interval(c.pass_rate_ci, false);
  }

  // In the job's own unit, as the rate card reads it: per job at the job's volume, per item.
  function cpoText(c, volume) {
    if (c.pending_judge) return "awaiting judge — not counted";
    if (c.cpo_usd === null) return c.pass_rate === null ? "withdrawn or not graded" : "no successful outcome";
    return usd(parseFloat(c.cpo_usd) * volume) + " per job · " + usd(c.cpo_usd) + " per item" + interval(c.cpo_ci, true);
  }

  function cell(row, text, value, field) {
    var td = document.createElement("td");
    td.textContent = text;
    if (field) td.setAttribute("data-field", field);
    if (value !== undefined && value !== null) td.setAttribute("data-value", String(value));
    row.appendChild(td);
  }

  function verdict(w, chosen, mode) {
    var r = w.routing;
    if (!r || !r.challenger || !r.incumbent || chosen.length !== 2) return "none published for this pair";
    var same = chosen.indexOf(r.challenger) >= 0 && chosen.indexOf(r.incumbent) >= 0;
    if (!same || (r.challenger_mode !== mode && r.incumbent_mode !== mode)) return "none published for this pair";
    return r.verdict.replace("_", " ") + ": " + r.reason + (r.remedy ? " Remedy: " + r.remedy : "");
  }

  // Whether the cell qualifies, and its n: a 5/5 cell reads 1.00 but cannot qualify at n = 5.
  // The same words as the static table (templates/_macros.md.j2, `qualifies`).
  function qualText(c) {
    var why = "";
    if (!c.qualifying) {
      var p = c.judge_protocol;
      if (c.n + c.missing < 15) why = ": n = " + (c.n + c.missing) + ", short of the standard's 15";
      else if (p && p.missing && p.missing.length) why = ": " + p.missing[0].split(":")[0];
    }
    return (c.qualifying ? "yes" : "no" + why) + " (n = " + c.n + ")";
  }

  function render(form, results, chosen, names) {
    var out = form.querySelector(".lr-compare-out");
    out.textContent = "";
    if (chosen.length < 2) {
      out.textContent = "Pick at least two models.";
      return;
    }
    var table = document.createElement("table");
    table.className = "lr-compare-table";
    var head = document.createElement("tr");
    ["Workload", "Mode"].forEach(function (h) {
      var th = document.createElement("th"); th.textContent = h; head.appendChild(th);
    });
    chosen.forEach(function (m) {
      ["pass rate [95% CI]", "qualifies (n)", "CPO per job · per item [95% CI per item]", "cost per attempt", "agentic multiplier"].forEach(function (h) {
        var th = document.createElement("th"); th.textContent = (names[m] || m) + ": " + h; head.appendChild(th);
      });
    });
    var vh = document.createElement("th"); vh.textContent = "Paired routing verdict"; head.appendChild(vh);
    var thead = document.createElement("thead"); thead.appendChild(head); table.appendChild(thead);
    var body = document.createElement("tbody");
    results.workloads.forEach(function (w) {
      var modes = {};
      w.cells.forEach(function (c) { if (chosen.indexOf(c.model) >= 0) modes[c.mode] = true; });
      Object.keys(modes).sort().forEach(function (mode) {
        var row = document.createElement("tr");
        row.setAttribute("data-workload", w.workload);
        row.setAttribute("data-mode", mode);
        cell(row, w.title + " (" + w.workload + ")");
        cell(row, mode);
        chosen.forEach(function (m) {
          var c = null;
          w.cells.forEach(function (x) { if (x.model === m && x.mode === mode) c = x; });
          if (!c) { cell(row, "did not run"); cell(row, "—"); cell(row, "—"); cell(row, "—"); cell(row, "—"); return; }
          cell(row, passText(c), c.pass_rate, m + ":pass_rate");
          cell(row, qualText(c), null, m + ":qualifying");
          cell(row, cpoText(c, w.volume), c.cpo_usd, m + ":cpo_usd");
          cell(row, c.cost_per_attempt_usd === null ? "—" : usd(c.cost_per_attempt_usd) + " per attempt", c.cost_per_attempt_usd, m + ":cost_per_attempt_usd");
          var mult = w.agentic_multiplier ? w.agentic_multiplier[m] : null;
          cell(row, mult === null || mult === undefined ? "—" : mult.toFixed(2) + "×", mult, m + ":agentic_multiplier");
        });
        cell(row, verdict(w, chosen, mode));
        body.appendChild(row);
      });
    });
    table.appendChild(body);
    out.appendChild(table);
  }

  function init() {
    document.querySelectorAll("form.lr-compare").forEach(function (form) {
      if (form.getAttribute("data-ready")) return;
      form.setAttribute("data-ready", "1");
      var names = {};
      form.querySelectorAll("input[name=model]").forEach(function (box) {
        names[box.value] = box.parentNode.textContent.replace(/\s*\([^)]*\)\s*$/, "").trim();
      });
      var loaded = null;
      function go() {
        var chosen = [];
        form.querySelectorAll("input[name=model]:checked").forEach(function (box) { chosen.push(box.value); });
        var ready = loaded || fetch(form.getAttribute("data-source"), { credentials: "same-origin" })
          .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); });
        loaded = ready;
        ready.then(function (data) { render(form, data.results, chosen, names); })
          .catch(function (err) {
            form.querySelector(".lr-compare-out").textContent = "Could not read the published figures (" + err + ").";
          });
      }
      form.querySelector(".lr-compare-go").addEventListener("click", go);
      // Enter in a field must not reload the page (the form has no action: nothing is sent).
      form.addEventListener("submit", function (event) { event.preventDefault(); });
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
