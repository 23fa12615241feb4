// A cell's drill-down page (runs/<edition>/<workload>/<model>/<mode>/): each run in full, read
// from the published logs the page links (data/<edition>/runs|grades/…jsonl.gz, unzipped here
// by the browser's DecompressionStream, and the long request strings in bodies/ beside them).
// Served from this site; it asks nothing of any other. Model output is hostile: every text from
// a record goes into the page with textContent, never as HTML. Without this script the page is
// its runs table, each row with its anchor, and the links to the logs that hold the rest.
(function () {
  "use strict";

  // What is the same on every cell page lives here, not in the page (28,000 pages of one 4 KB
  // block each at ten 215-model editions): the icon, the texts' limits (publish/drilldown.py's
  // INPUT_LIMIT, ANSWER_LIMIT, TOOL_LIMIT, which cut the items page's texts the same way), the
  // status of an infrastructure exclusion (schema RunStatus.infra_excluded), and the places of
  // the logs, read from the page's own links (tests/publish/test_drilldown_links.py checks both
  // constants against the package).
  var LIMITS = { input: 3000, answer: 4000, tool: 2000 };
  var INFRA = "infra-excluded";
  // The site's icon, beside this script (without scripts the browser asks for /favicon.ico).
  if (document.currentScript && !document.querySelector("link[rel=icon]")) {
    var icon = document.createElement("link");
    icon.rel = "icon";
    icon.href = new URL("../assets/images/favicon.png", document.currentScript.src).href;
    document.head.appendChild(icon);
  }
  var table = document.querySelector("table.lr-runs");
  var scroll = table && table.parentNode;
  if (!table || !scroll) return;
  var PROMPT_ROLES = { system: true, developer: true, user: true };
  var DIGEST = /^[0-9a-f]{64}$/;
  var limits = LIMITS;
  // The records paragraph's downloads: data/<edition>/runs|grades/<workload>/<model>/<mode>
  // .jsonl.gz, the log's kind four segments from the end; bodies/ is beside runs/.
  var logs = {};
  Array.prototype.forEach.call(document.querySelectorAll("a[download]"), function (a) {
    var parts = new URL(a.href).pathname.split("/");
    logs[parts[parts.length - 4]] = a.href;
  });
  var bodiesUrl = logs.runs ? new URL("../../../bodies/", logs.runs).href : null;
  // The page's <base> is its workload's items page (runs/<edition>/<workload>/).
  var basePath = new URL(document.baseURI).pathname.split("/");
  var workload = decodeURIComponent(basePath[basePath.length - 2] || "");
  // The status line and the runs' details go below the table.
  var status = el("p", null, "lr-status");
  status.id = "lr-detail-status";
  status.setAttribute("role", "status");
  var holder = el("div");
  holder.id = "lr-detail";
  scroll.after(status, holder);

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function append(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return parent;
  }

  function thousands(n) {
    return String(n || 0).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // As publish/safe.py:pre_block cuts a long text: counted in characters, not UTF-16 units.
  function pre(text, limit) {
    var shown = String(text);
    if (shown.length > limit) {
      var chars = Array.from(shown);
      if (chars.length > limit) {
        shown = chars.slice(0, limit).join("") +
          "\n… (" + (chars.length - limit) + " more characters in the raw log download)";
      }
    }
    var block = el("pre", null, "lr-verbatim");
    block.appendChild(el("code", shown));
    return block;
  }

  // JSON as Python's json.dumps(value, indent=2, sort_keys=True) writes it (the text the
  // pages showed before), `ascii` for its default ensure_ascii; `flat`: json.dumps(value).
  function pyJson(value, ascii, level, flat) {
    level = level || 0;
    if (value === null || value === undefined) return "null";
    if (typeof value === "string") {
      var quoted = JSON.stringify(value);
      return ascii ? quoted.replace(/[\u0080-\uffff]/g, function (c) {
        return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
      }) : quoted;
    }
    if (typeof value !== "object") return JSON.stringify(value);
    var pad = flat ? "" : "\n" + " ".repeat(2 * (level + 1));
    var end = flat ? "" : "\n" + " ".repeat(2 * level);
    var comma = flat ? ", " : ",";
    if (Array.isArray(value)) {
      if (!value.length) return "[]";
      return "[" + pad + value.map(function (v) { return pyJson(v, ascii, level + 1, flat); })
        .join(comma + pad) + end + "]";
    }
    var keys = Object.keys(value);
    if (!flat) keys.sort();
    if (!keys.length) return "{}";
    return "{" + pad + keys.map(function (k) {
      return pyJson(k, ascii) + ": " + pyJson(value[k], ascii, level + 1, flat);
    }).join(comma + pad) + end + "}";
  }

  async function readLog(url) {
    var response = await fetch(url);
    if (!response.ok) throw new Error(url + ": HTTP " + response.status);
    var bytes = new Uint8Array(await response.arrayBuffer());
    var text;
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      text = await new Response(stream).text();
    } else {
      // A host that sent the file with Content-Encoding: gzip: the browser unzipped it.
      text = new TextDecoder().decode(bytes);
    }
    return text.split("\n").filter(function (line) { return line.trim(); })
      .map(function (line) { return JSON.parse(line); });
  }

  // The request strings of the edition, each read once for every run that needs it.
  var strings = new Map();
  function storedString(digest) {
    if (!DIGEST.test(digest)) return Promise.reject(new Error("not a sha256: " + digest));
    if (!strings.has(digest)) {
      strings.set(digest, fetch(bodiesUrl + digest + ".txt").then(function (r) {
        if (!r.ok) throw new Error(digest + ": HTTP " + r.status);
        return r.text();
      }));
    }
    return strings.get(digest);
  }

  function tokensOf(pointer) {
    return pointer.split("/").slice(1).map(function (t) {
      return t.replace(/~1/g, "/").replace(/~0/g, "~");
    });
  }

  function put(body, tokens, text) {
    var target = body;
    for (var i = 0; i < tokens.length - 1; i++) target = target[tokens[i]];
    target[tokens[tokens.length - 1]] = text;
  }

  // The body as sent (run.bodies.restore), with only the strings `wanted` names put back.
  async function restored(run, wanted) {
    if (run.request) return run.request;
    var stored = run.request_stored;
    if (!stored) return {};
    var body = JSON.parse(JSON.stringify(stored.body || {}));
    var moved = Object.entries(stored.moved || {}).filter(function (e) { return wanted(e[0]); });
    var texts = await Promise.all(moved.map(function (e) { return storedString(e[1]); }));
    moved.forEach(function (e, i) { put(body, tokensOf(e[0]), texts[i]); });
    return body;
  }

  function textOf(content) {
    if (typeof content === "string") return content;
    if (Array.isArray(content)) {
      return content.map(function (p) {
        return p && typeof p === "object" && !Array.isArray(p) && "text" in p
          ? String(p.text) : pyJson(p, true, 0, true);
      }).join("\n");
    }
    return pyJson(content, true);
  }

  // What the model was sent after its first turn (drilldown_records.split_prompt: the prompt
  // before it is on the items page), or a request that is not a chat body, whole.
  async function sentOf(run) {
    var stored = run.request || (run.request_stored && run.request_stored.body) || {};
    var messages = stored && stored.messages;
    if (Array.isArray(messages) && messages.length) {
      var first = messages.length;
      for (var i = 0; i < messages.length; i++) {
        var m = messages[i];
        if (m && typeof m === "object" && !PROMPT_ROLES[String(m.role === undefined ? "?" : m.role)]) {
          first = i;
          break;
        }
      }
      var body = await restored(run, function (pointer) {
        var at = tokensOf(pointer);
        return at[0] === "messages" && Number(at[1]) >= first;
      });
      var rest = body.messages.slice(first).filter(function (m) {
        return m && typeof m === "object" && !Array.isArray(m);
      }).map(function (m) {
        return { role: String(m.role === undefined ? "?" : m.role), text: textOf(m.content === undefined ? "" : m.content) };
      });
      return { messages: rest, request: null };
    }
    var whole = await restored(run, function () { return true; });
    return { messages: [], request: pyJson(whole || {}, true) };
  }

  function latestGrades(grades) {
    var found = new Map();
    grades.forEach(function (g) {
      var held = found.get(g.run_id);
      if (!held || g.revision > held.revision ||
          (g.revision === held.revision && Date.parse(g.graded_at) >= Date.parse(held.graded_at))) {
        found.set(g.run_id, g);
      }
    });
    return found;
  }

  // A value of the schema's enumerations as the site spells it: records written before a
  // spelling changed keep the old one (schema/base.py, `Spelled`).
  var OLD_SPELLINGS = { estimate: "estimated" };
  function spelled(value) {
    var text = String(value);
    return OLD_SPELLINGS[text] || text.replace(/_/g, "-");
  }

  function verdict(passed) {
    return passed === null || passed === undefined ? "none" : passed ? "pass" : "fail";
  }

  // A record's exact amount (a decimal string, which Python may write as 1.08167E-7) in plain
  // digits, every one kept.
  function plainDecimal(text) {
    var m = /^(-?)(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/.exec(text);
    if (!m) return text;
    var digits = m[2] + (m[3] || "");
    var point = m[2].length + Number(m[4]);
    if (point <= 0) return m[1] + "0." + "0".repeat(-point) + digits;
    if (point >= digits.length) return m[1] + digits + "0".repeat(point - digits.length);
    return m[1] + digits.slice(0, point) + "." + digits.slice(point);
  }

  function money(value) {
    return "$" + plainDecimal(String(value === undefined || value === null ? 0 : value));
  }

  function heading(level, text) {
    return el("h" + level, text);
  }

  function runHeader(run, row) {
    var cells = row.querySelectorAll("td");  // the row's last two: cost, latency
    var latency = cells[cells.length - 1].textContent;
    var spent = cells[cells.length - 2].textContent;
    var usage = run.usage || {};
    var cost = run.cost || {};
    var line = el("p");
    append(line, "Run ", el("code", run.run_id), " · " + spelled(run.status));
    if (run.failure) append(line, " (" + run.failure + ")");
    append(line, " · started " + run.started_at + " · latency " + latency);
    var tokens = " · tokens " + thousands(usage.input_tokens) + " in";
    if (usage.cached_input_tokens) tokens += " (+" + thousands(usage.cached_input_tokens) + " cached)";
    tokens += " / " + thousands(usage.output_tokens) + " out";
    if (usage.reasoning_tokens) tokens += " (" + thousands(usage.reasoning_tokens) + " reasoning)";
    append(line, tokens + " (" + spelled(run.usage_basis) + ") · cost " + spent +
      " (model " + money(cost.model_usd) + ", compute " + money(cost.compute_usd) + "; " +
      spelled(run.cost_basis) + ")");
    if (spelled(run.status) === INFRA) {
      append(line, " · ", el("strong", "infrastructure exclusion: re-run, never counted"));
    }
    var source = run.source;
    if (source) {
      append(line, " · ingested from " + (source.harness === "inspect_ai" ? "Inspect AI" : "JSONL") +
        (source.harness_version ? " " + source.harness_version : "") + " log ",
        el("code", source.log_name), ", sample ", el("code", source.sample));
    }
    return line;
  }

  function stepsOf(run) {
    var box = el("details", null, "lr-steps");
    box.appendChild(el("summary", "Agent steps (" + run.steps.length + ")"));
    run.steps.forEach(function (s) {
      box.appendChild(el("h4", "Step " + s.step + (s.text ? ", the model wrote:" : "")));
      if (s.text) box.appendChild(pre(s.text, limits.tool));
      (s.tool_results || []).forEach(function (t) {
        var call = el("p");
        append(call, "Tool call ", el("strong", t.call.name),
          " (" + (t.ok ? "ok" : "refused or failed") + "), arguments:");
        append(box, call, pre(pyJson(t.call.arguments || {}, false), limits.tool),
          el("p", "The tool answered:"), pre(t.output, limits.tool));
      });
    });
    return box;
  }

  function checksOf(grade) {
    var part = document.createDocumentFragment();
    var title = el("h3");
    append(title, "Checks (grade revision " + grade.revision + ", outcome ",
      el("strong", spelled(grade.outcome)), ")");
    part.appendChild(title);
    var checks = el("table", null, "lr-checks");
    checks.appendChild(el("caption", "Each named check of this run's grade"));
    var head = checks.appendChild(el("thead")).appendChild(el("tr"));
    ["Check", "Result", "Detail"].forEach(function (name) {
      var th = el("th", name);
      th.scope = "col";
      head.appendChild(th);
    });
    var body = checks.appendChild(el("tbody"));
    var list = grade.checks || [];
    list.forEach(function (c) {
      append(body.appendChild(el("tr")), el("td", c.name), el("td", c.passed ? "pass" : "FAIL"),
        el("td", c.detail || "—"));
    });
    if (!list.length) append(body.appendChild(el("tr")), el("td", "—"), el("td", "no named checks"), el("td"));
    part.appendChild(el("div", null, "lr-scroll")).appendChild(checks);
    var diagnostics = Object.keys(grade.diagnostics || {}).sort();
    if (diagnostics.length) {
      part.appendChild(el("p", "Diagnostics: " + diagnostics.map(function (k) {
        var v = grade.diagnostics[k];
        return k + " = " + (v === true ? "yes" : v === false ? "no" : v);
      }).join("; ")));
    }
    var judge = grade.judge;
    if (judge) {
      part.appendChild(heading(3, "Judge"));
      var scores = Object.keys(judge.scores || {}).sort().map(function (k) {
        return "; " + k + " " + judge.scores[k];
      }).join("");
      part.appendChild(el("p", judge.judge_model + " (saw anonymised id " + judge.anon_id +
        "): verdict " + verdict(judge.passed) +
        (judge.score !== null && judge.score !== undefined ? ", score " + judge.score : "") +
        scores + " · judge cost " + money((judge.cost || {}).model_usd) +
        " model, " + money((judge.cost || {}).compute_usd) + " compute (never in CPO)"));
      if (judge.rationale) part.appendChild(pre(judge.rationale, limits.answer));
      var second = judge.second_opinion;
      if (second) {
        part.appendChild(el("p", "Second judge " + second.judge_model + ": " + verdict(second.passed) +
          (second.score !== null && second.score !== undefined ? ", score " + second.score : "")));
      }
    }
    var spot = grade.spotcheck;
    if (spot) {
      part.appendChild(heading(3, "Human spot-check"));
      part.appendChild(el("p", "By " + spot.grader + ": " + (spot.passed ? "pass" : "fail") +
        (spot.notes ? " (" + spot.notes + ")" : "")));
    }
    return part;
  }

  async function detailOf(run, grade, row) {
    var section = el("section", null, "lr-run-detail");
    var title = el("h2", "Item " + run.item_id + " · attempt " + run.attempt, "lr-run");
    title.id = row.dataset.anchor;
    title.tabIndex = -1;
    section.setAttribute("aria-labelledby", title.id);
    append(section, title, runHeader(run, row));
    var input = el("p");
    var item = row.querySelector("th a");
    var link = el("a", run.item_id);
    link.href = item.getAttribute("href");
    append(input, el("strong", "Input and expected answer:"), " ", link, " (on the page of " +
      workload + "'s items, shown once for every model and mode)");
    section.appendChild(input);
    try {
      var sent = await sentOf(run);
      if (sent.messages.length) {
        section.appendChild(heading(3, "What the model was sent after its first turn"));
        sent.messages.forEach(function (m) {
          append(section, append(el("p"), el("em", m.role + ":")), pre(m.text, limits.input));
        });
      }
      if (sent.request) {
        section.appendChild(heading(3, "The request (not a chat body, so shown here)"));
        section.appendChild(pre(sent.request, limits.input));
      }
    } catch (failed) {
      section.appendChild(el("p", "(the request's stored strings are missing from bodies/)"));
    }
    section.appendChild(heading(3, "The model's answer"));
    section.appendChild(pre(run.answer !== null && run.answer !== undefined ? run.answer : "(no final answer)", limits.answer));
    if (run.steps && run.steps.length) section.appendChild(stepsOf(run));
    if (grade) {
      section.appendChild(checksOf(grade));
    } else {
      var none = el("p");
      append(none, el("strong", "Not graded"), " (no grade record for this run" +
        (spelled(run.status) === INFRA ? ": infrastructure exclusions are never graded" : "") + ").");
      section.appendChild(none);
    }
    return section;
  }

  async function show() {
    var rows = Array.from(table.querySelectorAll("tbody tr[id^='run-']"));
    if (!rows.length) return;
    if (!logs.runs || typeof DecompressionStream === "undefined") {
      status.textContent = "Each run's detail is in the logs linked above (this browser cannot read them here).";
      return;
    }
    status.textContent = "Reading each run's detail from the logs…";
    var read = await Promise.all([
      readLog(logs.runs),
      logs.grades ? readLog(logs.grades) : Promise.resolve([]),
    ]);
    var runs = new Map(read[0].map(function (r) { return [r.run_id, r]; }));
    var grades = latestGrades(read[1]);
    var sections = [];
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var run = runs.get(row.id.slice("run-".length));
      if (!run) continue;
      row.dataset.anchor = row.id;
      row.dataset.item = run.item_id;
      row.dataset.attempt = run.attempt;
      sections.push(await detailOf(run, grades.get(run.run_id), row));
    }
    // The run's anchor moves from its row to its detail, where a link to it now leads.
    var head = table.querySelector("thead tr");
    var th = el("th", "Detail");
    th.scope = "col";
    head.appendChild(th);
    rows.forEach(function (row) {
      if (!row.dataset.anchor) return;
      var link = el("a", "detail");
      // In full: a bare "#run-…" would resolve against the page's <base>, the items page.
      link.href = new URL("#" + row.dataset.anchor, location.href).href;
      link.appendChild(el("span", " of item " + row.dataset.item + ", attempt " +
        row.dataset.attempt, "lr-hidden"));
      row.appendChild(el("td")).appendChild(link);
      row.removeAttribute("id");
    });
    sections.forEach(function (s) { holder.appendChild(s); });
    status.textContent = "Each run's detail is below the table (" + sections.length + " runs).";
    var target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target && target.classList.contains("lr-run")) {
      target.scrollIntoView();
      target.focus({ preventScroll: true });
    }
  }

  show().catch(function (failed) {
    status.textContent = "Each run's detail could not be read here (" + failed.message +
      "); the logs linked above hold it.";
  });
})();
