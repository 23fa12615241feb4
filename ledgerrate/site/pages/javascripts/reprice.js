// Re-price: the published figures at the reader's own prices, recomputed in the browser from
// each cell's published totals (tokens by class, or seconds × an hourly rate; passes; attempts).
// The manual (by-hand) arm is priced by time too: the analyst's stopwatch seconds × an hourly
// rate, plus its tool lines, which do not scale with the rate; it is never ranked.
// The data is in the page (a JSON script element written by publish/reprice_view.py): nothing
// is fetched and nothing typed leaves the page. The recipe is metrics/reprice.py's, in exact
// decimal arithmetic on BigInt: amounts are integers of 1e-40 USD, a cost per unit is rounded
// half-even to 1e-12 USD and a rate to the cent, as the published figures are.
(function () {
  "use strict";

  var SCALE = 40;
  var TEN = BigInt(10);
  var ZERO = BigInt(0);
  var ONE = BigInt(1);
  var TWO = BigInt(2);
  var S = pow10(SCALE);
  var CLASSES = ["input", "cached_input", "cache_write", "output", "reasoning"];
  var CLASS_LABEL = {
    input: "input",
    cached_input: "cached input",
    cache_write: "cache write",
    output: "output",
    reasoning: "reasoning",
  };
  var PRICE = /^\d+(\.\d{0,12})?$|^\.\d{1,12}$/;
  var PERCENT = /^[+-]?\d{1,4}(\.\d{0,6})?$/;

  function pow10(n) {
    var out = ONE;
    for (var i = 0; i < n; i += 1) out *= TEN;
    return out;
  }

  // A decimal string as published (digits, a point, an exponent: "3.13250E-7") → 1e-40 units.
  function dec(text) {
    var m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(String(text).trim());
    if (!m || (m[2] + (m[3] || "")) === "") throw new Error("not a decimal: " + text);
    var digits = m[2] + (m[3] || "");
    var exp = parseInt(m[4] || "0", 10) - (m[3] || "").length + SCALE;
    var value = BigInt(digits);
    if (exp >= 0) value *= pow10(exp);
    else value = roundDiv(value, pow10(-exp));
    return m[1] === "-" ? -value : value;
  }

  // n ÷ d rounded half-even to an integer (ROUND_HALF_EVEN, as Python's Decimal.quantize).
  function roundDiv(n, d) {
    var negative = (n < ZERO) !== (d < ZERO);
    var an = n < ZERO ? -n : n;
    var ad = d < ZERO ? -d : d;
    var q = an / ad;
    var twice = (an % ad) * TWO;
    if (twice > ad || (twice === ad && q % TWO === ONE)) q += ONE;
    return negative ? -q : q;
  }

  // Units of 10^-scale → plain decimal text, every digit, no trailing zeros ("0.05", "10").
  function exactText(units, scale) {
    var negative = units < ZERO;
    var digits = (negative ? -units : units).toString();
    while (digits.length <= scale) digits = "0" + digits;
    var whole = digits.slice(0, digits.length - scale);
    var frac = digits.slice(digits.length - scale).replace(/0+$/, "");
    return (negative ? "-" : "") + whole + (frac ? "." + frac : "");
  }

  function fixedText(units, places) {
    var digits = units.toString();
    while (digits.length <= places) digits = "0" + digits;
    var whole = digits.slice(0, digits.length - places);
    return { whole: whole, frac: digits.slice(digits.length - places) };
  }

  function commas(whole) {
    return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // Rescale units of 10^-from to 10^-to (half-even when digits are dropped).
  function rescale(units, from, to) {
    return to >= from ? units * pow10(to - from) : roundDiv(units, pow10(from - to));
  }

  // Position of the leading digit (Python's Decimal.adjusted) of a positive amount.
  function adjusted(units, scale) {
    return units.toString().length - 1 - scale;
  }

  // usd._plain: four significant digits, cents kept below $1,000, whole dollars above.
  function plainAbove(units, scale) {
    if (units === ZERO) return "$0";
    if (units >= BigInt(1000) * pow10(scale)) {
      return "$" + commas(rescale(units, scale, 0).toString());
    }
    var places = Math.max(2, 3 - adjusted(units, scale));
    var rounded = rescale(units, scale, places);
    if (rounded >= BigInt(1000) * pow10(places)) return plainAbove(rounded, places);
    var parts = fixedText(rounded, places);
    var frac = parts.frac.replace(/0+$/, "");
    while (frac.length < 2) frac += "0";
    return "$" + commas(parts.whole) + "." + frac;
  }

  // usd.plain: an amount in plain dollars; under a cent to three significant digits.
  function plain(units, scale) {
    var negative = units < ZERO;
    var abs = negative ? -units : units;
    var cent = pow10(scale) / BigInt(100);
    if (abs === ZERO || abs >= cent) return (negative ? "-" : "") + plainAbove(abs, scale);
    var places = 2 - adjusted(abs, scale);
    var rounded = rescale(abs, scale, places);
    if (adjusted(rounded, places) > adjusted(abs, scale)) {
      // Rounding carried into a new leading digit: one place fewer keeps three digits.
      rounded = rescale(rounded, places, places - 1);
      places -= 1;
    }
    if (rounded >= pow10(places) / BigInt(100)) {
      return (negative ? "-" : "") + plainAbove(rounded, places);
    }
    var parts = fixedText(rounded, places);
    return (negative ? "-" : "") + "$" + parts.whole + "." + parts.frac;
  }

  // usd.job_and_item: a CPO (1e-12 units) per job at the job's volume and per single item.
  function jobAndItem(cpo12, volume) {
    return plain(cpo12 * BigInt(volume), 12) + " per job · " + plain(cpo12, 12) + " per item";
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      node.setAttribute(k, attrs[k]);
    });
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // ------------------------------------------------------------------ the recipe

  function tokenCost(tokens, price) {
    var p = {};
    CLASSES.forEach(function (c) {
      p[c] = price[c];
    });
    var cached = p.cached_input !== null ? p.cached_input : p.input;
    var write = p.cache_write !== null ? p.cache_write : p.input;
    var reasoning = p.reasoning;
    var visible = BigInt(tokens.output) - (reasoning !== null ? BigInt(tokens.reasoning) : ZERO);
    var total =
      BigInt(tokens.input) * p.input +
      BigInt(tokens.cached_input) * cached +
      BigInt(tokens.cache_write) * write +
      visible * p.output +
      (reasoning !== null ? BigInt(tokens.reasoning) * reasoning : ZERO);
    return roundDiv(total, pow10(6));
  }

  // Seconds at an hourly rate, rounded half-even to 1e-12 USD (metrics/money.time_cost).
  function timeCost(seconds, rate) {
    var units12 = roundDiv(seconds * rate, BigInt(3600) * pow10(SCALE + SCALE - 12));
    return units12 * pow10(SCALE - 12);
  }

  function perItem(spend, count) {
    return roundDiv(spend, BigInt(count) * pow10(SCALE - 12));
  }

  // The effective prices: a price the reader set as given, else the frozen one scaled by the
  // vendor's percentage (family first, then API provider), as metrics/reprice.py does.
  function effective(view) {
    var data = view.data;
    var tokens = {};
    var hourly = {};
    var changed = [];
    var vendorOf = {};
    data.models.forEach(function (m) {
      vendorOf[m.id] = m;
    });
    function pct(model) {
      var m = vendorOf[model];
      if (!m) return null;
      var keys = [m.vendor, m.provider];
      for (var i = 0; i < keys.length; i += 1) {
        if (keys[i] && Object.prototype.hasOwnProperty.call(view.pct, keys[i])) {
          return dec(view.pct[keys[i]]);
        }
      }
      return null;
    }
    function scaled(value, p) {
      if (p === null) return value;
      return roundDiv(value * (BigInt(100) * S + p), BigInt(100) * S);
    }
    Object.keys(data.prices).forEach(function (model) {
      var frozen = data.prices[model];
      var p = pct(model);
      var own = view.over[model] || {};
      tokens[model] = {};
      CLASSES.forEach(function (c) {
        var was = frozen[c] === null ? null : dec(frozen[c]);
        var now = own[c] !== undefined ? dec(own[c]) : was === null ? null : scaled(was, p);
        tokens[model][c] = now;
        if (now !== null && now !== was) {
          var before = was === null ? "as input" : "$" + exactText(was, SCALE);
          changed.push(model + " " + CLASS_LABEL[c] + ": " + before + " → $" +
            exactText(now, SCALE) + " per 1M tokens");
        }
      });
    });
    Object.keys(data.hourly).forEach(function (model) {
      if (data.hourly[model].basis === "manual") {
        // No vendor, and each workload's analyst recorded their own rate: every manual cell
        // keeps its own until the reader sets one (metrics/reprice.effective_prices).
        if (view.hourly[model] === undefined) return;
        var mine = dec(view.hourly[model]);
        hourly[model] = mine;
        data.hourly[model].rates.forEach(function (text) {
          var before = dec(text);
          if (before !== mine) {
            changed.push(model + " hourly rate: $" + exactText(before, SCALE) + " → $" +
              exactText(mine, SCALE) + " per hour");
          }
        });
        return;
      }
      var was = dec(data.hourly[model].hour_usd);
      var own = view.hourly[model];
      var now = own !== undefined ? dec(own) : scaled(was, pct(model));
      hourly[model] = now;
      if (now !== was) {
        changed.push(model + " hourly rate: $" + exactText(was, SCALE) + " → $" +
          exactText(now, SCALE) + " per hour");
      }
    });
    return { tokens: tokens, hourly: hourly, changed: changed };
  }

  // One cell at the effective prices: a figure the published cell does not show (withdrawn,
  // or no successful outcome) stays absent.
  function repriceCell(cell, prices) {
    var spend = null;
    var unknown = cell.time && cell.time.unknown ? cell.time.unknown : [];
    if (cell.time) {
      var rate = prices.hourly[cell.model] !== undefined ? prices.hourly[cell.model]
        : dec(cell.time.hour_usd);
      spend = timeCost(dec(cell.time.seconds), rate) + dec(cell.time.rounding_usd) +
        (cell.time.fixed_usd !== undefined ? dec(cell.time.fixed_usd) : ZERO);
    } else if (prices.tokens[cell.model]) {
      spend = tokenCost(cell.tokens, prices.tokens[cell.model]);
    }
    var out = { cell: cell, spend: null, cpo: null, cpa: null, rate: null, unknown: unknown };
    if (spend === null) {
      out.unpriced = true;
      out.cpo = cell.cpo === null ? null : rescale(dec(cell.cpo), SCALE, 12);
      return out;
    }
    out.spend = cell.spend === null ? null : spend;
    // An unknown cost line keeps the CPO unknown at any rate: never filled in.
    out.cpo = cell.cpo === null || unknown.length ? null : perItem(spend, cell.passes);
    out.cpa = cell.cpa === null || unknown.length ? null : perItem(spend, cell.n);
    return out;
  }

  function usable(r) {
    return !r.cell.void && r.cell.n > 0;
  }

  // metrics/indices._rank: lowest CPO first, no CPO last; then higher pass rate, model, mode.
  function rank(a, b) {
    var pa = a.cpo !== null ? 0 : 1;
    var pb = b.cpo !== null ? 0 : 1;
    if (pa !== pb) return pa - pb;
    if (pa === 0 && a.cpo !== b.cpo) return a.cpo < b.cpo ? -1 : 1;
    var ra = -(a.cell.pass_rate || 0);
    var rb = -(b.cell.pass_rate || 0);
    if (ra !== rb) return ra < rb ? -1 : 1;
    if (a.cell.model !== b.cell.model) return a.cell.model < b.cell.model ? -1 : 1;
    if (a.cell.mode !== b.cell.mode) return a.cell.mode < b.cell.mode ? -1 : 1;
    return 0;
  }

  function flagshipRank(a, b) {
    var qa = a.cell.qualifying ? 0 : 1;
    var qb = b.cell.qualifying ? 0 : 1;
    return qa !== qb ? qa - qb : rank(a, b);
  }

  function ratio(a, b) {
    if (a === null || b === null || b === ZERO) return null;
    return Number(a) / Number(b);
  }

  // A workload with a withdrawn figure of a model is re-priced but not re-ranked
  // (metrics/reprice.py): at other prices the withdrawn cell could rank anywhere.
  function unranked(workload, rows) {
    var multipliers = {};
    Object.keys(workload.multipliers).forEach(function (model) {
      multipliers[model] = workload.multipliers[model] ? multiplier(rows, model) : null;
    });
    var refs = rows.filter(function (r) {
      return usable(r) && r.cell.reference;
    }).sort(rank);
    return {
      unranked: true,
      cheapest: null,
      flagship: null,
      premium: null,
      premiums: [],
      multipliers: multipliers,
      reference: refs.length && refs[0].cpo !== null ? refs[0] : null,
    };
  }

  function multiplier(rows, model) {
    var arms = {};
    rows.forEach(function (r) {
      if (!r.cell.reference && r.cell.model === model) arms[r.cell.mode] = r;
    });
    var a = arms.agentic;
    var s = arms["single-shot"];
    return a && s && !a.cell.void && !s.cell.void ? ratio(a.cpo, s.cpo) : null;
  }

  function indices(workload, rows, flagships) {
    // The manual arm is shown beside the models, never ranked among them.
    rows = rows.filter(function (r) {
      return !r.cell.by_hand;
    });
    // A withdrawn reference baseline ranks against nothing (metrics/reprice.py).
    if (rows.some(function (r) { return r.cell.withdrawn && !r.cell.reference; })) {
      return unranked(workload, rows);
    }
    var models = rows.filter(function (r) {
      return usable(r) && !r.cell.reference;
    });
    var qualifying = models.filter(function (r) {
      return r.cell.qualifying;
    }).sort(rank);
    var cheapest = qualifying.length && qualifying[0].cpo !== null ? qualifying[0] : null;
    var best = {};
    models.slice().sort(flagshipRank).forEach(function (r) {
      if (flagships[r.cell.model] && !best[r.cell.model]) best[r.cell.model] = r;
    });
    var own = Object.keys(best).map(function (k) {
      return best[k];
    }).sort(flagshipRank);
    var flagship = own.length ? own[0] : null;
    var refs = rows.filter(function (r) {
      return usable(r) && r.cell.reference;
    }).sort(rank);
    var multipliers = {};
    Object.keys(workload.multipliers).forEach(function (model) {
      multipliers[model] = multiplier(rows, model);
    });
    return {
      cheapest: cheapest,
      flagship: flagship,
      premium: flagship && cheapest ? ratio(flagship.cpo, cheapest.cpo) : null,
      premiums: own.map(function (r) {
        return { row: r, premium: cheapest ? ratio(r.cpo, cheapest.cpo) : null };
      }),
      multipliers: multipliers,
      reference: refs.length && refs[0].cpo !== null ? refs[0] : null,
    };
  }

  function rateOf(r, volume) {
    if (r === null || r.cpo === null || !r.cell.has_line) return null;
    return roundDiv(r.cpo * BigInt(volume), pow10(10));
  }

  // ------------------------------------------------------------------ the view

  function fragmentFor(view) {
    var parts = [];
    Object.keys(view.over).sort().forEach(function (model) {
      Object.keys(view.over[model]).sort().forEach(function (c) {
        parts.push("t~" + encodeURIComponent(model) + "~" + c + "=" +
          encodeURIComponent(view.over[model][c]));
      });
    });
    Object.keys(view.hourly).sort().forEach(function (model) {
      parts.push("h~" + encodeURIComponent(model) + "=" + encodeURIComponent(view.hourly[model]));
    });
    Object.keys(view.pct).sort().forEach(function (vendor) {
      parts.push("p~" + encodeURIComponent(vendor) + "=" + encodeURIComponent(view.pct[vendor]));
    });
    return "reprice-" + view.data.edition + "/" + parts.join("&");
  }

  // Prices from the URL fragment (`#reprice-<edition>/t~model~class=v&h~model=v&p~vendor=v`);
  // anything malformed or naming nothing in the edition is ignored, never guessed.
  function readFragment(view) {
    var raw = window.location.hash.replace(/^#/, "");
    var prefix = "reprice-" + view.data.edition + "/";
    if (raw.indexOf(prefix) !== 0) return false;
    raw.slice(prefix.length).split("&").forEach(function (part) {
      var eq = part.indexOf("=");
      if (eq < 0) return;
      var key = part.slice(0, eq).split("~").map(decodeURIComponentSafe);
      var value = decodeURIComponentSafe(part.slice(eq + 1));
      if (key[0] === "t" && key.length === 3 && has(view.data.prices, key[1]) &&
          CLASSES.indexOf(key[2]) >= 0 && PRICE.test(value)) {
        view.over[key[1]] = view.over[key[1]] || Object.create(null);
        view.over[key[1]][key[2]] = value;
      } else if (key[0] === "h" && key.length === 2 && has(view.data.hourly, key[1]) &&
          PRICE.test(value)) {
        view.hourly[key[1]] = value;
      } else if (key[0] === "p" && key.length === 2 && view.vendors.indexOf(key[1]) >= 0 &&
          validPercent(value)) {
        view.pct[key[1]] = value;
      }
    });
    return true;
  }

  function has(object, key) {
    return Object.prototype.hasOwnProperty.call(object, key);
  }

  function decodeURIComponentSafe(text) {
    try {
      return decodeURIComponent(text);
    } catch (e) {
      return "";
    }
  }

  function validPercent(text) {
    if (!PERCENT.test(text)) return false;
    var v = dec(text);
    return v >= BigInt(-100) * S && v <= BigInt(1000) * S;
  }

  // A price field showing the frozen price: a value equal to it (or empty) is no change.
  function priceInput(view, label, frozen, onValue) {
    var input = el("input", {
      type: "text",
      inputmode: "decimal",
      autocomplete: "off",
      spellcheck: "false",
      size: "9",
      "aria-label": label,
    });
    input.value = frozen === null ? "" : frozen;
    input.setAttribute("data-frozen", frozen === null ? "" : frozen);
    if (frozen === null) input.setAttribute("placeholder", "none");
    input.addEventListener("input", function () {
      var text = input.value.trim();
      var ok = text === "" || PRICE.test(text);
      input.setAttribute("aria-invalid", ok ? "false" : "true");
      if (!ok) return;
      var same = text === "" || (frozen !== null && dec(text) === dec(frozen));
      onValue(same ? "" : text);
      update(view);
    });
    return input;
  }

  function buildPrices(view) {
    var data = view.data;
    var names = {};
    data.models.forEach(function (m) {
      names[m.id] = m;
    });
    var box = el("div", { class: "lr-reprice-prices" });
    var tokenModels = Object.keys(data.prices);
    if (tokenModels.length) {
      var scroll = el("div", {
        class: "lr-scroll",
        role: "region",
        "aria-label": "Prices per million tokens (scrolls sideways on a narrow screen)",
        tabindex: "0",
      });
      var table = el("table", { class: "lr-reprice-price-table" });
      table.appendChild(el("caption", {},
        "Prices per million tokens, US$: frozen for edition " + data.edition +
        "; edit any (an empty cached input, cache write or reasoning price follows the " +
        "input or output price, as frozen)"));
      var head = el("tr");
      ["Model", "Vendor"].concat(CLASSES.map(function (c) {
        return CLASS_LABEL[c];
      })).forEach(function (h) {
        head.appendChild(el("th", { scope: "col" }, h));
      });
      table.appendChild(el("thead")).appendChild(head);
      var body = table.appendChild(el("tbody"));
      tokenModels.forEach(function (model) {
        var m = names[model] || { name: model, vendor: "" };
        var tr = el("tr", { "data-model": model });
        tr.appendChild(el("th", { scope: "row" }, m.name));
        tr.appendChild(el("td", {}, m.vendor));
        CLASSES.forEach(function (c) {
          var frozen = data.prices[model][c];
          var td = el("td");
          var input = priceInput(view, m.name + ", " + CLASS_LABEL[c] + ", US$ per million tokens",
            frozen, function (text) {
              view.over[model] = view.over[model] || Object.create(null);
              if (text === "") delete view.over[model][c];
              else view.over[model][c] = text;
            });
          input.setAttribute("data-class", c);
          input.setAttribute("data-model", model);
          view.inputs.push({ input: input, model: model, cls: c });
          td.appendChild(input);
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      scroll.appendChild(table);
      box.appendChild(scroll);
    }
    var timed = Object.keys(data.hourly);
    if (timed.length) {
      var tscroll = el("div", {
        class: "lr-scroll",
        role: "region",
        "aria-label": "Hourly rates (scrolls sideways on a narrow screen)",
        tabindex: "0",
      });
      var ttable = el("table", { class: "lr-reprice-hourly-table" });
      ttable.appendChild(el("caption", {},
        "Hourly rates, US$ per hour, of the arms priced by time (server, CPU or stopwatch " +
        "seconds × rate): frozen for edition " + data.edition + "; edit any"));
      var thead = el("tr");
      ["Model", "Priced by", "US$ per hour"].forEach(function (h) {
        thead.appendChild(el("th", { scope: "col" }, h));
      });
      ttable.appendChild(el("thead")).appendChild(thead);
      var tbody = ttable.appendChild(el("tbody"));
      timed.forEach(function (model) {
        var entry = data.hourly[model];
        var manual = entry.basis === "manual";
        var m = manual ? { name: "By hand (manual arm)" } : names[model] || { name: model };
        var tr = el("tr", { "data-model": model });
        tr.appendChild(el("th", { scope: "row" }, m.name));
        tr.appendChild(el("td", {}, manual
          ? "the analyst's stopwatch time; tool lines stay as recorded" +
            (entry.rates.length > 1 ? " (recorded per job: $" + entry.rates.join(", $") +
              " per hour; a rate typed here replaces them all)" : "")
          : entry.basis === "compute"
            ? "CPU time (reference baseline)" : "server time (self-hosted)"));
        var td = el("td");
        var input = priceInput(view, m.name + ", US$ per hour", entry.hour_usd,
          function (text) {
            if (text === "") delete view.hourly[model];
            else view.hourly[model] = text;
          });
        input.setAttribute("data-hourly", model);
        if (manual && entry.hour_usd === null) input.setAttribute("placeholder", "as recorded");
        view.inputs.push({ input: input, model: model, cls: null });
        td.appendChild(input);
        tr.appendChild(td);
        tbody.appendChild(tr);
      });
      tscroll.appendChild(ttable);
      box.appendChild(tscroll);
    }
    // A percentage per vendor: a negotiated discount, a batch API at half price.
    var fieldset = el("fieldset", { class: "lr-reprice-percent" });
    fieldset.appendChild(el("legend", {}, "A percentage on every frozen price of one vendor"));
    var selectId = "lr-reprice-vendor-" + data.edition;
    var pctId = "lr-reprice-pct-" + data.edition;
    fieldset.appendChild(el("label", { for: selectId }, "Vendor "));
    var select = el("select", { id: selectId });
    view.vendors.forEach(function (v) {
      select.appendChild(el("option", { value: v }, v));
    });
    fieldset.appendChild(select);
    fieldset.appendChild(el("label", { for: pctId }, " change in % (−20 is a 20% discount) "));
    var pct = el("input", { id: pctId, type: "text", inputmode: "decimal", size: "6" });
    fieldset.appendChild(pct);
    var apply = el("button", { type: "button", class: "md-button" }, "Apply");
    var clear = el("button", { type: "button", class: "md-button" }, "Reset all prices");
    fieldset.appendChild(apply);
    fieldset.appendChild(clear);
    var error = el("span", { class: "lr-reprice-error", "aria-live": "polite" });
    fieldset.appendChild(error);
    apply.addEventListener("click", function () {
      var text = pct.value.trim().replace("−", "-");
      if (!validPercent(text)) {
        pct.setAttribute("aria-invalid", "true");
        error.textContent = " A percentage between −100 and 1000, up to six decimals.";
        return;
      }
      pct.setAttribute("aria-invalid", "false");
      error.textContent = "";
      if (dec(text) === ZERO) delete view.pct[select.value];
      else view.pct[select.value] = text;
      update(view);
    });
    clear.addEventListener("click", function () {
      view.over = Object.create(null);
      view.hourly = Object.create(null);
      view.pct = Object.create(null);
      view.inputs.forEach(function (i) {
        i.input.value = i.input.getAttribute("data-frozen");
        i.input.setAttribute("aria-invalid", "false");
      });
      update(view);
    });
    box.appendChild(fieldset);
    return box;
  }

  function cellText(r, volume) {
    if (r.unknown.length) return "unknown (" + r.unknown.join(", ") + " unknown)";
    if (r.cpo === null) return r.cell.cpo === null ? "no CPO published" : "—";
    return jobAndItem(r.cpo, volume);
  }

  function lineText(label, r, volume, names) {
    if (!r) return label + ": none";
    var rate = rateOf(r, volume);
    return label + ": " + (names[r.cell.model] || r.cell.model) + " (" + r.cell.mode + "), " +
      cellText(r, volume) + (rate !== null ? "; rate " + plainAbove(rate, 2) : "");
  }

  function renderWorkload(view, workload, prices, names, flagships) {
    var rows = workload.cells.map(function (c) {
      return repriceCell(c, prices);
    });
    var ix = indices(workload, rows, flagships);
    var box = el("div", { class: "lr-reprice-workload", "data-workload": workload.id });
    var scroll = el("div", {
      class: "lr-scroll",
      role: "region",
      "aria-label": "Re-priced figures, " + workload.title + " (scrolls sideways on a narrow screen)",
      tabindex: "0",
    });
    var table = el("table", { class: "lr-reprice-table" });
    table.appendChild(el("caption", {}, workload.title + " (" + workload.id + "): " +
      view.data.label + "; rate per " + workload.unit));
    var head = el("tr");
    ["Model", "Mode", "Qualifies", "CPO as published", "CPO re-priced", "Rate re-priced"]
      .forEach(function (h) {
        head.appendChild(el("th", { scope: "col" }, h));
      });
    table.appendChild(el("thead")).appendChild(head);
    var body = table.appendChild(el("tbody"));
    rows.forEach(function (r) {
      var c = r.cell;
      var rate = rateOf(r, workload.volume);
      var tr = el("tr", {
        "data-model": c.model,
        "data-mode": c.mode,
        "data-cpo": r.cpo === null ? "" : exactText(r.cpo, 12),
        "data-rate": rate === null ? "" : exactText(rate, 2),
        "data-spend": r.spend === null ? "" : exactText(r.spend, SCALE),
        "data-cpa": r.cpa === null ? "" : exactText(r.cpa, 12),
      });
      tr.appendChild(el("th", { scope: "row" }, c.by_hand ? "By hand (manual arm, never ranked)"
        : (names[c.model] || c.model) + (c.reference ? " (reference, never ranked)" : "")));
      tr.appendChild(el("td", {}, c.mode));
      tr.appendChild(el("td", {}, c.void ? "void" : c.qualifying ? "yes" : "no"));
      tr.appendChild(el("td", {}, c.cpo === null ? "—" :
        jobAndItem(rescale(dec(c.cpo), SCALE, 12), workload.volume)));
      tr.appendChild(el("td", {}, !r.unpriced ? cellText(r, workload.volume)
        : !c.by_hand ? "no price to re-price with"
          : c.void ? "void: no figure" : "unknown (no hourly rate recorded)"));
      tr.appendChild(el("td", {}, rate === null ? "—" : plainAbove(rate, 2)));
      body.appendChild(tr);
    });
    scroll.appendChild(table);
    box.appendChild(scroll);
    // A rate line needs a CPO and a pass rate with its interval (metrics/indices.rate_line).
    var key = function (r) {
      return r && r.cpo !== null && r.cell.has_line ? r.cell.model + "/" + r.cell.mode : "";
    };
    var list = el("ul", {
      class: "lr-reprice-indices",
      "data-cheapest": key(ix.cheapest),
      "data-cheapest-cpo": ix.cheapest ? exactText(ix.cheapest.cpo, 12) : "",
      "data-cheapest-rate": ix.cheapest && rateOf(ix.cheapest, workload.volume) !== null
        ? exactText(rateOf(ix.cheapest, workload.volume), 2) : "",
      "data-flagship": key(ix.flagship),
      "data-premium": ix.premium === null ? "" : String(ix.premium),
      "data-reference": key(ix.reference),
    });
    if (ix.unranked) list.appendChild(el("li", { class: "lr-reprice-unranked" }, view.data.unranked));
    list.appendChild(el("li", {}, lineText("Cheapest qualifying", ix.cheapest, workload.volume, names)));
    list.appendChild(el("li", {}, lineText("Flagship", ix.flagship, workload.volume, names)));
    list.appendChild(el("li", {}, "Frontier premium: " +
      (ix.premium === null ? "—" : ix.premium.toFixed(2) + "×")));
    ix.premiums.slice(1).forEach(function (p) {
      list.appendChild(el("li", { "data-flagship-premium": p.row.cell.model,
        "data-premium": p.premium === null ? "" : String(p.premium) },
        "Premium of flagship " + (names[p.row.cell.model] || p.row.cell.model) + ": " +
        (p.premium === null ? "—" : p.premium.toFixed(2) + "×")));
    });
    var multis = Object.keys(ix.multipliers);
    if (multis.length) {
      var li = el("li", { class: "lr-reprice-multipliers" }, "Agentic multiplier: " +
        multis.map(function (m) {
          var v = ix.multipliers[m];
          return (names[m] || m) + " " + (v === null ? "—" : v.toFixed(2) + "×");
        }).join("; "));
      multis.forEach(function (m) {
        li.setAttribute("data-multiplier-" + m, ix.multipliers[m] === null ? "" :
          String(ix.multipliers[m]));
      });
      list.appendChild(li);
    }
    if (ix.reference) {
      list.appendChild(el("li", {}, lineText("Reference baseline (never ranked)", ix.reference,
        workload.volume, names)));
    }
    var hand = rows.filter(function (r) {
      return r.cell.by_hand;
    })[0];
    if (hand) list.appendChild(byHandLine(hand, ix, workload.volume, names));
    box.appendChild(list);
    return box;
  }

  // The card's model-vs-manual ratios (publish/by_hand.py), at the reader's prices: manual CPO
  // ÷ the cheapest qualifying model's, and ÷ the flagship's when it qualifies; only where the
  // manual arm qualifies with a known cost.
  function byHandLine(hand, ix, volume, names) {
    var ok = hand.cell.qualifying && !hand.cell.void && hand.cpo !== null;
    var cheap = ok && ix.cheapest ? ratio(hand.cpo, ix.cheapest.cpo) : null;
    var flag = ok && ix.flagship && ix.flagship.cell.qualifying
      ? ratio(hand.cpo, ix.flagship.cpo) : null;
    var text = "By hand (never ranked): " + (hand.cell.void ? "void: no figure"
      : hand.unknown.length ? "cost unknown (" + hand.unknown.join(", ") + " unknown)"
        : hand.cpo === null ? "no CPO" : cellText(hand, volume));
    if (cheap !== null) {
      text += "; × " + cheap.toFixed(2) + " the cheapest qualifying model's CPO";
    }
    if (flag !== null) {
      text += "; × " + flag.toFixed(2) + " the flagship's (" +
        (names[ix.flagship.cell.model] || ix.flagship.cell.model) + ")";
    }
    return el("li", {
      class: "lr-reprice-by-hand",
      "data-vs-cheapest": cheap === null ? "" : String(cheap),
      "data-vs-flagship": flag === null ? "" : String(flag),
    }, text);
  }

  function update(view) {
    var prices = effective(view);
    var out = view.out;
    out.textContent = "";
    var status = el("p", { class: "lr-reprice-label" });
    var strong = el("strong", {}, prices.changed.length
      ? view.data.label.charAt(0).toUpperCase() + view.data.label.slice(1) + "."
      : "Every price as frozen: these are the published figures, recomputed from the cells' " +
        "totals.");
    status.appendChild(strong);
    out.appendChild(status);
    view.status.textContent = prices.changed.length
      ? "Re-priced with your prices: " + prices.changed.length + " changed price" +
        (prices.changed.length === 1 ? "" : "s") + "; not a published figure."
      : "Every price as frozen.";
    if (prices.changed.length) {
      out.appendChild(el("p", {}, "Changed prices:"));
      var ul = el("ul", { class: "lr-reprice-changed" });
      prices.changed.forEach(function (line) {
        ul.appendChild(el("li", {}, line));
      });
      out.appendChild(ul);
    }
    var frag = fragmentFor(view);
    var link = el("a", { class: "lr-reprice-link", href: "#" + frag }, "Link to this view");
    var p = el("p", {}, "");
    p.appendChild(link);
    p.appendChild(document.createTextNode(" (your prices are in the link's fragment, which a " +
      "browser never sends to any server). Not re-priced: the bootstrap intervals and the " +
      "routing verdict, which rest on each item's cost."));
    out.appendChild(p);
    if (view.started && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "#" + frag);
    }
    var names = {};
    var flagships = {};
    view.data.models.forEach(function (m) {
      names[m.id] = m.name;
      if (m.flagship) flagships[m.id] = true;
    });
    view.data.workloads.forEach(function (w) {
      out.appendChild(renderWorkload(view, w, prices, names, flagships));
    });
    view.root.setAttribute("data-changed", String(prices.changed.length));
  }

  function init(details) {
    if (details.hasAttribute("data-ready")) return;
    details.setAttribute("data-ready", "");
    var script = details.querySelector("script.lr-reprice-data");
    if (!script) return;
    var data = JSON.parse(script.textContent);
    var vendors = [];
    data.models.forEach(function (m) {
      // A reference solver's provider is null: its vendor family alone names it.
      [m.vendor, m.provider].forEach(function (v) {
        if (v && vendors.indexOf(v) < 0) vendors.push(v);
      });
    });
    var view = {
      data: data,
      root: details,
      over: Object.create(null),
      hourly: Object.create(null),
      pct: Object.create(null),
      vendors: vendors,
      inputs: [],
      started: false,
    };
    var body = details.querySelector(".lr-reprice-body");
    var opened = readFragment(view);
    body.appendChild(buildPrices(view));
    view.status = el("p", { class: "lr-reprice-status", role: "status", "aria-live": "polite" });
    body.appendChild(view.status);
    view.out = el("div", { class: "lr-reprice-out" });
    body.appendChild(view.out);
    showInputs(view);
    update(view);
    view.started = true;
    if (opened) details.open = true;
    // A link pasted into this page's address bar changes only the fragment: apply it too.
    window.addEventListener("hashchange", function () {
      if (window.location.hash === "#" + fragmentFor(view)) return;
      view.over = Object.create(null);
      view.hourly = Object.create(null);
      view.pct = Object.create(null);
      if (!readFragment(view)) return;
      showInputs(view);
      update(view);
      details.open = true;
    });
  }

  function showInputs(view) {
    view.inputs.forEach(function (i) {
      var value = i.cls === null ? view.hourly[i.model]
        : view.over[i.model] && view.over[i.model][i.cls];
      i.input.value = value !== undefined ? value : i.input.getAttribute("data-frozen");
      i.input.setAttribute("aria-invalid", "false");
    });
  }

  function start() {
    document.querySelectorAll("details.lr-reprice").forEach(init);
  }

  // mkdocs-material's instant navigation swaps pages without a load event.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(start);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
