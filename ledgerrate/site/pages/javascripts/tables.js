// Sortable, filterable results tables. Served from the site itself; the tables are plain HTML
// and read the same with JavaScript off. A results table is the first table after a
// `p.lr-table-data` paragraph (the one that links its CSV and JSON).
//
// Sorting: a figure cell carries its exact value in `data-sort`, so numbers sort as numbers
// whatever scale they are shown in; an empty key (no successful outcome, withdrawn, pending)
// sorts last in both directions. Other cells sort as text, digits by value.
// Filtering: a select per "Mode", "Vendor" and "Qualifying" column, built from its values.
(function () {
  "use strict";
  var FILTERED = ["mode", "vendor", "qualifying"];

  function cellText(td) {
    return (td ? td.textContent : "").replace(/\s+/g, " ").trim();
  }

  // A qualifying cell may say why not ("no: judge unchecked"); its filter reads the verdict.
  function filterValue(td, name) {
    var text = cellText(td);
    return name === "qualifying" ? text.split(/[:;]/)[0].trim() : text;
  }

  function sortKey(td) {
    var keyed = td ? td.querySelector("[data-sort]") : null;
    if (keyed) {
      var raw = keyed.getAttribute("data-sort");
      return raw === "" ? { missing: true } : { num: parseFloat(raw) };
    }
    var text = cellText(td);
    if (text === "" || text === "—") return { missing: true };
    return { text: text.toLowerCase() };
  }

  function compare(a, b) {
    if (a.missing || b.missing) return 0; // placed by the caller, always last
    if (a.num !== undefined && b.num !== undefined) return a.num - b.num;
    return String(a.text !== undefined ? a.text : a.num).localeCompare(
      String(b.text !== undefined ? b.text : b.num), undefined, { numeric: true });
  }

  function enhance(table, index) {
    var head = table.tHead && table.tHead.rows[0];
    var body = table.tBodies[0];
    if (!head || !body) return;
    table.classList.add("lr-sortable");
    var headers = Array.prototype.slice.call(head.cells);
    var original = Array.prototype.slice.call(body.rows);
    headers.forEach(function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "lr-sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach(function (other) { other.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = original.map(function (row, i) {
          return { row: row, key: sortKey(row.cells[col]), i: i };
        });
        rows.sort(function (a, b) {
          if (a.key.missing !== b.key.missing) return a.key.missing ? 1 : -1;
          var c = compare(a.key, b.key);
          return (ascending ? c : -c) || a.i - b.i;
        });
        rows.forEach(function (r) { body.appendChild(r.row); });
      });
    });
    var filters = [];
    headers.forEach(function (th, col) {
      var name = cellText(th).toLowerCase();
      if (FILTERED.indexOf(name) < 0) return;
      var values = {};
      original.forEach(function (row) { values[filterValue(row.cells[col], name)] = true; });
      var label = document.createElement("label");
      label.className = "lr-filter";
      label.appendChild(document.createTextNode(cellText(th) + " "));
      var select = document.createElement("select");
      select.setAttribute("data-filter", name);
      select.id = "lr-filter-" + index + "-" + name;
      [""].concat(Object.keys(values).sort()).forEach(function (value) {
        var option = document.createElement("option");
        option.value = value;
        option.textContent = value === "" ? "all" : value;
        select.appendChild(option);
      });
      label.appendChild(select);
      filters.push({ col: col, name: name, select: select, label: label });
    });
    if (!filters.length) return;
    var bar = document.createElement("div");
    bar.className = "lr-filters";
    var count = document.createElement("span");
    count.className = "lr-filter-count";
    count.setAttribute("aria-live", "polite");
    filters.forEach(function (f) {
      bar.appendChild(f.label);
      f.select.addEventListener("change", apply);
    });
    bar.appendChild(count);
    var anchor = table.closest(".md-typeset__scrollwrap") || table;
    anchor.parentNode.insertBefore(bar, anchor);

    function apply() {
      var shown = 0;
      original.forEach(function (row) {
        var keep = filters.every(function (f) {
          return !f.select.value || filterValue(row.cells[f.col], f.name) === f.select.value;
        });
        row.hidden = !keep;
        if (keep) shown += 1;
      });
      count.textContent = shown + " of " + original.length + " rows";
    }
  }

  function nextTable(marker) {
    for (var el = marker.nextElementSibling; el; el = el.nextElementSibling) {
      if (el.tagName === "TABLE") return el;
      if (/^H[1-6]$/.test(el.tagName)) return null; // a new section: the marker had no table
      var inner = el.querySelector && el.querySelector("table");
      if (inner) return inner;
      if (el.classList && el.classList.contains("lr-table-data")) return null;
    }
    return null;
  }

  function init() {
    document.querySelectorAll("p.lr-table-data").forEach(function (marker, index) {
      var table = nextTable(marker);
      if (table && !table.classList.contains("lr-sortable")) enhance(table, index);
    });
  }

  // mkdocs-material's instant navigation swaps pages without a load event; its document$
  // observable announces each page. Without it, the ordinary DOMContentLoaded.
  if (typeof document$ !== "undefined" && document$.subscribe) {
    document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
