// agentgym view: draws the run digests as SVG and browses episodes. No dependencies, no network.
"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var readJSON = function (id) { return JSON.parse($(id).textContent); };
  var META = readJSON("ag-meta"), DIG = readJSON("ag-digests"), IDX = readJSON("ag-index");
  var C = IDX.cols, TB = IDX.tables, N = C.run.length, PAGE = 50;
  var chunks = {}, waiting = {};
  var state = { run: 0, plotted: {}, rows: [], page: 0, pairRows: null, open: null };

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function fmt(v, d) { return v === null || v === undefined || isNaN(v) ? "–" : Number(v).toFixed(d === undefined ? 2 : d); }
  function el(tag, attrs, html) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (html !== undefined) e.innerHTML = html;
    return e;
  }
  function heat(v) { // red (0) to yellow to green (1)
    if (v === null || v === undefined) return "#eeeeee";
    var h = 120 * Math.max(0, Math.min(1, v));
    return "hsl(" + h + ",65%," + (78 - 18 * Math.abs(v - 0.5)) + "%)";
  }
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];
  var CATCOL = { success: "#2e7d32", answer_contradicts_state: "#00838f", timeout: "#f9a825", tool_call_error: "#c62828", state_misidentification: "#6a1b9a",
    missing_verification: "#1565c0", planning_mistake: "#5d4037" };

  // ---- tooltips -------------------------------------------------------------------------------
  var tip = $("tip");
  document.addEventListener("mousemove", function (ev) {
    var t = ev.target.closest ? ev.target.closest("[data-tip]") : null;
    if (!t) { tip.style.display = "none"; return; }
    tip.textContent = t.getAttribute("data-tip");
    tip.style.display = "block";
    tip.style.left = ev.clientX + 12 + "px"; tip.style.top = ev.clientY + 12 + "px";
  });

  // ---- SVG helpers ----------------------------------------------------------------------------
  function svg(w, h, body, cls) {
    return '<svg xmlns="http://www.w3.org/2000/svg" class="' + (cls || "") + '" width="' + w + '" height="' + h +
      '" viewBox="0 0 ' + w + " " + h + '">' + body + "</svg>";
  }
  // a chart frame: x positions are the T values in order, y from 0 to ymax
  function frame(ts, ymax, w, h, ylabel) {
    var L = 46, R = 10, T0 = 10, B = 30;
    var P = 28; // room for a bar at either end
    var xs = function (i) { return L + P + (ts.length < 2 ? (w - L - R - 2 * P) / 2 : i * (w - L - R - 2 * P) / (ts.length - 1)); };
    var ys = function (v) { return T0 + (h - T0 - B) * (1 - v / (ymax || 1)); };
    var g = '<line x1="' + L + '" y1="' + ys(0) + '" x2="' + (w - R) + '" y2="' + ys(0) + '" stroke="#999"/>';
    for (var q = 0; q <= 4; q++) {
      var v = ymax * q / 4;
      g += '<line x1="' + L + '" x2="' + (w - R) + '" y1="' + ys(v) + '" y2="' + ys(v) + '" stroke="#eee"/>' +
        '<text x="' + (L - 4) + '" y="' + (ys(v) + 4) + '" text-anchor="end">' + (ymax <= 1 ? v.toFixed(2) : fmtNum(v)) + "</text>";
    }
    ts.forEach(function (t, i) { g += '<text x="' + xs(i) + '" y="' + (h - 14) + '" text-anchor="middle">' + t + "</text>"; });
    g += '<text x="' + ((w + L) / 2) + '" y="' + (h - 2) + '" text-anchor="middle">T (turn budget)</text>';
    g += '<text x="10" y="' + (h / 2) + '" transform="rotate(-90 10 ' + h / 2 + ')" text-anchor="middle">' + esc(ylabel) + "</text>";
    return { xs: xs, ys: ys, g: g };
  }
  function fmtNum(v) { return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toPrecision(2); }
  function line(points, color, label) {
    var d = points.filter(function (p) { return p; }).map(function (p, i) { return (i ? "L" : "M") + p[0] + " " + p[1]; }).join(" ");
    var dots = points.filter(function (p) { return p; }).map(function (p) {
      return '<circle cx="' + p[0] + '" cy="' + p[1] + '" r="3" fill="' + color + '" data-tip="' + esc(label + ": " + p[2]) + '"/>';
    }).join("");
    return '<path d="' + d + '" fill="none" stroke="' + color + '" stroke-width="2"/>' + dots;
  }
  function legend(items) {
    return '<div class="legend">' + items.map(function (it) {
      return '<span><i style="background:' + it[1] + '"></i>' + esc(it[0]) + "</span>";
    }).join("") + "</div>";
  }
  function tkeys(obj) { return Object.keys(obj || {}).map(Number).sort(function (a, b) { return a - b; }); }

  // ---- runs table -----------------------------------------------------------------------------
  function allTs() {
    var s = {};
    DIG.forEach(function (d) { d.ts.forEach(function (t) { s[t] = 1; }); });
    return tkeys(s);
  }
  function drawRuns() {
    var ts = allTs();
    var h = "<thead><tr><th>plot</th><th>run</th><th>agent</th><th>envs</th><th>episodes</th><th>injected</th>" +
      ts.map(function (t) { return "<th>T=" + t + "</th>"; }).join("") + "</tr></thead><tbody>";
    DIG.forEach(function (d, i) {
      var inj = d.faults || (d.intervention && d.intervention.name ? "forced: " + d.intervention.name : "");
      h += '<tr data-run="' + i + '"' + (i === state.run ? ' class="sel"' : "") + '><td><input type="checkbox" data-plot="' + i + '"' +
        (state.plotted[i] ? " checked" : "") + "></td><td>" + esc(d.label) + "</td><td>" + esc(d.agent.split(".").pop()) +
        "</td><td>" + esc(d.envs.map(function (e) { return e.replace("agentgym/", ""); }).join(", ")) + "</td><td>" + d.counts.episodes +
        "</td><td>" + esc(inj) + "</td>" +
        ts.map(function (t) {
          var c = d.pass[t] && d.pass[t]["1"];
          return c ? '<td class="cell" style="background:' + heat(c.mean) + '" data-tip="' + esc("pass@1 " + fmt(c.mean) + " [" + fmt(c.lo) + ", " + fmt(c.hi) + "], " + c.tasks + " tasks") + '">' + fmt(c.mean) + "</td>" : "<td></td>";
        }).join("") + "</tr>";
    });
    $("runs-table").innerHTML = h + "</tbody>";
  }
  $("runs-table").addEventListener("click", function (ev) {
    var box = ev.target.getAttribute && ev.target.getAttribute("data-plot");
    if (box !== null && box !== undefined) { state.plotted[box] = ev.target.checked; drawSuccess(); return; }
    var tr = ev.target.closest("tr[data-run]");
    if (tr) selectRun(Number(tr.getAttribute("data-run")));
  });
  function selectRun(i) {
    state.run = i;
    Array.prototype.forEach.call(document.querySelectorAll("#runs-table tr[data-run]"), function (tr) {
      tr.className = Number(tr.getAttribute("data-run")) === i ? "sel" : "";
    });
    Array.prototype.forEach.call(document.querySelectorAll(".run-name"), function (s) { s.textContent = "· " + DIG[i].label; });
    drawHeatmap(); drawCategories(); drawRecovery(); drawCost();
  }

  // ---- charts of the selected run ---------------------------------------------------------------
  function drawHeatmap() {
    var d = DIG[state.run], ts = tkeys(d.pass), ks = d.ks.slice().sort(function (a, b) { return a - b; });
    var cw = 64, ch = 30, L = 60, T0 = 24;
    var w = L + cw * ts.length + 10, h = T0 + ch * ks.length + 30, g = "";
    ts.forEach(function (t, i) { g += '<text x="' + (L + cw * i + cw / 2) + '" y="16" text-anchor="middle">T=' + t + "</text>"; });
    ks.forEach(function (k, j) {
      g += '<text x="' + (L - 6) + '" y="' + (T0 + ch * j + ch / 2 + 4) + '" text-anchor="end">pass@' + k + "</text>";
      ts.forEach(function (t, i) {
        var c = (d.pass[t] || {})[String(k)];
        var v = c ? c.mean : null;
        g += '<rect class="cell" x="' + (L + cw * i) + '" y="' + (T0 + ch * j) + '" width="' + (cw - 2) + '" height="' + (ch - 2) +
          '" fill="' + heat(v) + '" data-tip="' + esc(c ? "pass@" + k + " at T=" + t + ": " + fmt(v) + " [" + fmt(c.lo) + ", " + fmt(c.hi) + "] over " + c.tasks + " tasks" : "not run") + '"/>' +
          '<text x="' + (L + cw * i + cw / 2 - 1) + '" y="' + (T0 + ch * j + ch / 2 + 4) + '" text-anchor="middle" pointer-events="none">' + fmt(v) + "</text>";
      });
    });
    $("heatmap").innerHTML = ts.length ? svg(w, h, g, "heatmap") : '<p class="muted">no clean episodes in this run</p>';
  }

  function drawSuccess() {
    var ids = Object.keys(state.plotted).filter(function (k) { return state.plotted[k]; }).map(Number);
    if (!ids.length) ids = [state.run];
    var ts = {};
    ids.forEach(function (i) { tkeys(DIG[i].pass).forEach(function (t) { ts[t] = 1; }); });
    ts = tkeys(ts);
    var w = 640, h = 280, f = frame(ts, 1, w, h, "success (pass@1)"), g = f.g, leg = [];
    ids.forEach(function (i, n) {
      var d = DIG[i], color = PALETTE[n % PALETTE.length], band = "", lo = [], hi = [], pts = [];
      ts.forEach(function (t, x) {
        var c = d.pass[t] && d.pass[t]["1"];
        if (!c || c.mean === null) { pts.push(null); return; }
        pts.push([f.xs(x), f.ys(c.mean), "T=" + t + " " + fmt(c.mean) + " [" + fmt(c.lo) + ", " + fmt(c.hi) + "]"]);
        lo.push([f.xs(x), f.ys(c.lo === null ? c.mean : c.lo)]); hi.push([f.xs(x), f.ys(c.hi === null ? c.mean : c.hi)]);
      });
      if (lo.length) {
        band = '<path d="' + hi.concat(lo.reverse()).map(function (p, j) { return (j ? "L" : "M") + p[0] + " " + p[1]; }).join(" ") +
          'Z" fill="' + color + '" opacity="0.15"/>';
      }
      g += band + line(pts, color, d.label);
      leg.push([d.label, color]);
    });
    $("success-chart").innerHTML = svg(w, h, g, "success") + legend(leg);
  }

  function drawCategories() {
    var d = DIG[state.run], ts = tkeys(d.categories), cats = META.categories;
    var w = 640, h = 260, f = frame(ts, 1, w, h, "share of episodes"), g = f.g;
    var bw = Math.min(46, (w - 80) / Math.max(ts.length, 1) * 0.6);
    ts.forEach(function (t, x) {
      var y0 = 0;
      cats.forEach(function (c) {
        var v = d.categories[t][c] || 0;
        if (!v) return;
        g += '<rect x="' + (f.xs(x) - bw / 2) + '" y="' + f.ys(y0 + v) + '" width="' + bw + '" height="' + (f.ys(y0) - f.ys(y0 + v)) +
          '" fill="' + CATCOL[c] + '" data-tip="' + esc("T=" + t + " " + c + ": " + fmt(v)) + '"/>';
        y0 += v;
      });
    });
    $("cat-chart").innerHTML = (ts.length ? svg(w, h, g, "categories") : "") +
      legend(cats.map(function (c) { return [c, CATCOL[c]]; }));
  }

  function drawRecovery() {
    var d = DIG[state.run], out = "";
    var rt = tkeys(d.recovery);
    if (rt.length) {
      var w = 640, h = 260, f = frame(rt, 1, w, h, "success"), g = f.g;
      var clean = rt.map(function (t, x) { var r = d.recovery[t]; return r.clean === null ? null : [f.xs(x), f.ys(r.clean), "clean " + fmt(r.clean) + " (" + r.pairs + " pairs)"]; });
      var faulted = rt.map(function (t, x) { var r = d.recovery[t]; return r.faulted === null ? null : [f.xs(x), f.ys(r.faulted), "with " + d.faults + ": " + fmt(r.faulted) + ", paired rate " + fmt(r.paired_rate)]; });
      var tool = rt.map(function (t, x) { var r = d.recovery[t]; return r.recovered_tool === null || r.recovered_tool === undefined ? null : [f.xs(x), f.ys(r.recovered_tool), "a tool call succeeded after the fault in " + fmt(r.recovered_tool) + " of " + r.fault_episodes + " episodes"]; });
      g += line(clean, "#2e7d32", "clean") + line(faulted, "#c62828", "faulted") + line(tool, "#1565c0", "tool recovered");
      out += "<h3>Injected faults: " + esc(d.faults || "") + "</h3>" + svg(w, h, g, "recovery") +
        legend([["clean twin", "#2e7d32"], ["with the fault", "#c62828"], ["a tool call succeeded after the fault", "#1565c0"]]);
    }
    var iv = d.intervention && d.intervention.by_t ? d.intervention.by_t : {};
    var it = tkeys(iv);
    if (it.length) {
      var w2 = 640, h2 = 260, f2 = frame(it, 1, w2, h2, "success"), g2 = f2.g;
      g2 += line(it.map(function (t, x) { return iv[t].clean === null ? null : [f2.xs(x), f2.ys(iv[t].clean), "clean " + fmt(iv[t].clean)]; }), "#2e7d32", "clean");
      g2 += line(it.map(function (t, x) { var v = iv[t]; return v.intervened === null ? null : [f2.xs(x), f2.ys(v.intervened), "forced start " + fmt(v.intervened) + ", difference " + fmt(v.diff && v.diff.mean) + " [" + fmt(v.diff && v.diff.lo) + ", " + fmt(v.diff && v.diff.hi) + "], recovered " + fmt(v.recovered) + " (" + v.pairs + " pairs)"]; }), "#6a1b9a", "forced");
      out += "<h3>Forced start: " + esc(d.intervention.name || "") + "</h3>" + svg(w2, h2, g2, "intervention") +
        legend([["clean twin", "#2e7d32"], ["after the forced start", "#6a1b9a"]]);
    }
    $("rec-chart").innerHTML = out || '<p class="muted">This run injected no fault and forced no start: run <code>agentgym eval --faults ...</code> or <code>--intervention ...</code> to measure recovery.</p>';
  }

  function drawCost() {
    var d = DIG[state.run], ts = tkeys(d.cost), out = "";
    if (!ts.length) { $("cost-chart").innerHTML = ""; return; }
    var series = [["model_calls", "model calls (agent turns)"], ["env_calls", "env calls"], ["prompt_tokens", "prompt tokens"], ["completion_tokens", "completion tokens"]];
    series.forEach(function (s, n) {
      var vals = ts.map(function (t) { return d.cost[t][s[0]]; });
      if (vals.every(function (v) { return v === undefined || v === null; })) return;
      var ymax = Math.max.apply(null, vals.map(function (v) { return v || 0; })) * 1.1 || 1;
      var f = frame(ts, ymax, 300, 200, "mean " + s[1]);
      out += "<div>" + svg(300, 200, f.g + line(ts.map(function (t, x) { var v = d.cost[t][s[0]]; return v === null || v === undefined ? null : [f.xs(x), f.ys(v), "T=" + t + " " + fmtNum(v)]; }), PALETTE[n], s[1]), "cost") + "</div>";
    });
    var lt = tkeys(d.latency);
    if (lt.length) {
      var ymax = Math.max.apply(null, lt.map(function (t) { return d.latency[t].p95 || 0; })) * 1.1 || 1;
      var f = frame(lt, ymax, 300, 200, "episode latency (s)");
      out += "<div>" + svg(300, 200, f.g +
        line(lt.map(function (t, x) { return [f.xs(x), f.ys(d.latency[t].p50), "p50 " + fmtNum(d.latency[t].p50) + " s"]; }), "#1f77b4", "p50") +
        line(lt.map(function (t, x) { return [f.xs(x), f.ys(d.latency[t].p95), "p95 " + fmtNum(d.latency[t].p95) + " s"]; }), "#d62728", "p95"), "latency") +
        legend([["p50", "#1f77b4"], ["p95", "#d62728"]]) + "</div>";
    }
    $("cost-chart").innerHTML = out;
  }

  // ---- two runs on the same tasks ---------------------------------------------------------------
  function pairKey(i) { return C.task[i] + "|" + C.T[i] + "|" + C.sample[i] + "|" + C.fault[i]; }
  var byRun = null;
  function runRows() {
    if (!byRun) {
      byRun = DIG.map(function () { return []; });
      for (var i = 0; i < N; i++) byRun[C.run[i]].push(i);
    }
    return byRun;
  }
  function drawPairs() {
    var a = Number($("pair-a").value), b = Number($("pair-b").value), rows = runRows();
    var mb = {};
    rows[b].forEach(function (i) { mb[pairKey(i)] = i; });
    var per = {};
    rows[a].forEach(function (i) {
      var j = mb[pairKey(i)];
      if (j === undefined || C.ok[i] < 0 || C.ok[j] < 0) return;
      var t = C.T[i], p = per[t] || (per[t] = { n: 0, a: 0, b: 0, both: [], aonly: [], bonly: [], neither: [] });
      p.n++; p.a += C.ok[i]; p.b += C.ok[j];
      (C.ok[i] && C.ok[j] ? p.both : C.ok[i] ? p.aonly : C.ok[j] ? p.bonly : p.neither).push(i);
    });
    var ts = tkeys(per);
    if (!ts.length) { $("pair-table").innerHTML = '<p class="muted">These two runs share no scored episode (same task, T, sample and injection).</p>'; return; }
    state.pairCells = {};
    var h = "<table><thead><tr><th>T</th><th>pairs</th><th>first succeeds</th><th>second succeeds</th><th>both</th><th>first only</th><th>second only</th><th>neither</th></tr></thead><tbody>";
    ts.forEach(function (t) {
      var p = per[t];
      ["both", "aonly", "bonly", "neither"].forEach(function (k) { state.pairCells[t + ":" + k] = p[k]; });
      var link = function (k) { return '<a href="#ep-sec" data-pair="' + t + ":" + k + '">' + p[k].length + "</a>"; };
      h += "<tr><td>" + t + "</td><td>" + p.n + "</td><td>" + fmt(p.a / p.n) + "</td><td>" + fmt(p.b / p.n) + "</td><td>" + link("both") +
        "</td><td>" + link("aonly") + "</td><td>" + link("bonly") + "</td><td>" + link("neither") + "</td></tr>";
    });
    $("pair-table").innerHTML = h + "</tbody></table>";
  }
  $("pair-table").addEventListener("click", function (ev) {
    var k = ev.target.getAttribute("data-pair");
    if (!k) return;
    clearFilters(false);
    state.pairRows = { label: "paired: " + k, rows: state.pairCells[k] };
    applyFilters();
  });

  // ---- episode browser ----------------------------------------------------------------------------
  function fillSelect(id, values, labels) {
    var s = $(id);
    s.innerHTML = '<option value="">any</option>' + values.map(function (v, i) {
      return '<option value="' + esc(v) + '">' + esc(labels ? labels[i] : v) + "</option>";
    }).join("");
  }
  function distinct(col) { var s = {}; for (var i = 0; i < N; i++) s[C[col][i]] = 1; return Object.keys(s).map(Number).sort(function (a, b) { return a - b; }); }
  function setupFilters() {
    fillSelect("f-run", IDX.runs.map(function (_, i) { return i; }), IDX.runs);
    var tiers = TB.tier.map(function (_, i) { return i; }).filter(function (i) { return TB.tier[i]; });
    fillSelect("f-tier", tiers, tiers.map(function (i) { return TB.tier[i]; }));
    fillSelect("f-T", distinct("T"));
    fillSelect("f-category", TB.category.map(function (_, i) { return i; }), TB.category);
    fillSelect("f-fault", TB.fault.map(function (_, i) { return i; }), TB.fault);
    $("task-list").innerHTML = TB.task.slice(0, 2000).map(function (t) { return '<option value="' + esc(t) + '">'; }).join("");
    ["f-run", "f-tier", "f-T", "f-outcome", "f-category", "f-fault"].forEach(function (id) {
      $(id).addEventListener("change", function () { state.pairRows = null; applyFilters(); });
    });
    $("f-task").addEventListener("input", function () { state.pairRows = null; applyFilters(); });
    $("f-clear").addEventListener("click", function () { clearFilters(true); });
    $("prev").addEventListener("click", function () { if (state.page > 0) { state.page--; drawList(); } });
    $("next").addEventListener("click", function () { if ((state.page + 1) * PAGE < state.rows.length) { state.page++; drawList(); } });
    var opts = IDX.runs.map(function (r, i) { return '<option value="' + i + '">' + esc(r) + "</option>"; }).join("");
    $("pair-a").innerHTML = opts; $("pair-b").innerHTML = opts;
    $("pair-b").value = String(Math.min(1, IDX.runs.length - 1));
    $("pair-a").addEventListener("change", drawPairs); $("pair-b").addEventListener("change", drawPairs);
  }
  function clearFilters(apply) {
    ["f-run", "f-tier", "f-T", "f-outcome", "f-category", "f-fault", "f-task"].forEach(function (id) { $(id).value = ""; });
    state.pairRows = null;
    if (apply) applyFilters();
  }
  function applyFilters() {
    var v = function (id) { return $(id).value; };
    var run = v("f-run"), tier = v("f-tier"), T = v("f-T"), out = v("f-outcome"), cat = v("f-category"), fault = v("f-fault");
    var task = v("f-task").trim(), taskOk = null;
    if (task) { taskOk = {}; TB.task.forEach(function (t, i) { if (t.indexOf(task) >= 0) taskOk[i] = 1; }); }
    var want = { ok: 1, fail: 0, none: -1 }[out];
    var src = state.pairRows ? state.pairRows.rows : null, rows = [];
    var n = src ? src.length : N;
    for (var j = 0; j < n; j++) {
      var i = src ? src[j] : j;
      if (run !== "" && C.run[i] !== +run) continue;
      if (tier !== "" && C.tier[i] !== +tier) continue;
      if (T !== "" && C.T[i] !== +T) continue;
      if (out !== "" && C.ok[i] !== want) continue;
      if (cat !== "" && C.category[i] !== +cat) continue;
      if (fault !== "" && C.fault[i] !== +fault) continue;
      if (taskOk && !taskOk[C.task[i]]) continue;
      rows.push(i);
    }
    state.rows = rows; state.page = 0;
    drawList();
  }
  function outcomeCell(i) {
    return C.ok[i] === 1 ? '<span class="ok">success</span>' : C.ok[i] === 0 ? '<span class="bad">failure</span>' : '<span class="muted">not scored</span>';
  }
  function drawList() {
    var rows = state.rows, start = state.page * PAGE, h = "";
    rows.slice(start, start + PAGE).forEach(function (i) {
      h += '<tr data-ep="' + i + '"' + (state.open === i ? ' class="sel"' : "") + "><td>" + i + "</td><td>" + esc(IDX.runs[C.run[i]]) + "</td><td>" + esc(TB.task[C.task[i]]) +
        "</td><td>" + C.T[i] + "</td><td>" + C.sample[i] + "</td><td>" + outcomeCell(i) + "</td><td>" + esc(TB.category[C.category[i]]) +
        "</td><td>" + esc(TB.fault[C.fault[i]]) + "</td><td>" + C.turns[i] + "</td></tr>";
    });
    document.querySelector("#episode-list tbody").innerHTML = h;
    $("ep-count").textContent = rows.length + " of " + N + " episodes" + (state.pairRows ? " (" + state.pairRows.label + ")" : "");
    $("page-no").textContent = rows.length ? "page " + (state.page + 1) + " of " + Math.ceil(rows.length / PAGE) : "";
  }
  document.querySelector("#episode-list tbody").addEventListener("click", function (ev) {
    var tr = ev.target.closest("tr[data-ep]");
    if (tr) openEpisode(Number(tr.getAttribute("data-ep")), null);
  });

  // ---- records, loaded by chunk ----------------------------------------------------------------
  window.agentgymChunk = function (n, records) {
    chunks[n] = records;
    (waiting[n] || []).forEach(function (cb) { cb(records); });
    delete waiting[n];
  };
  function withRecord(i, cb) {
    var n = Math.floor(i / IDX.chunk), off = i % IDX.chunk;
    if (chunks[n]) { cb(chunks[n][off]); return; }
    if (META.inline) { chunks[n] = readJSON("ag-chunk-" + n); cb(chunks[n][off]); return; }
    var first = !waiting[n];
    (waiting[n] || (waiting[n] = [])).push(function (recs) { cb(recs[off]); });
    if (first) {
      var s = document.createElement("script");
      s.src = META.dir + "/chunk-" + n + ".js";
      s.onerror = function () { $("episode").innerHTML = '<p class="bad">Could not load ' + esc(s.src) + ": keep the folder " + esc(META.dir) + " next to this page.</p>"; };
      document.body.appendChild(s);
    }
  }

  // ---- one episode, turn by turn ---------------------------------------------------------------
  function twins(i) { // the same task and sample: other budgets of this run, and other runs
    var out = [];
    for (var j = 0; j < N && out.length < 60; j++) {
      if (j !== i && C.task[j] === C.task[i] && C.sample[j] === C.sample[i] && (C.run[j] !== C.run[i] || C.T[j] !== C.T[i] || C.fault[j] !== C.fault[i])) out.push(j);
    }
    return out;
  }
  function evChip(e) {
    var kind = e.kind || "event", cls = "ev", txt = kind;
    if (kind === "fault_injected") { cls += " fault"; txt = "fault struck: " + (e.fault || ""); }
    else if ((kind === "tool_call" && e.ok === false) || (kind === "action" && e.parsed_ok === false)) { cls += " err"; }
    var detail = Object.keys(e).filter(function (k) { return k !== "kind" && e[k] !== null && e[k] !== ""; }).map(function (k) { return k + "=" + e[k]; }).join(", ");
    if (kind === "tool_call") txt += " " + (e.name || "") + (e.ok === false ? " ✗" : " ✓");
    if (kind === "verification") txt += e.ok === false ? " ✗" : e.ok ? " ✓" : "";
    return '<span class="' + cls + '" title="' + esc(detail) + '">' + esc(txt) + "</span>";
  }
  function renderEpisode(i, r) {
    var h = '<div class="ep-head"><b>#' + i + "</b> " + esc(IDX.runs[C.run[i]]) + " · <b>" + esc(r.task) + "</b> · " + esc(r.env) +
      " · T=" + esc(r.T) + " · sample " + esc(r.sample) + " · injected: " + esc(TB.fault[C.fault[i]]) + "<br>" +
      "turns " + esc(r.turns) + " of " + esc(r.T) + (r.min_turns ? " (the task needs at least " + esc(r.min_turns) + ")" : "") +
      " · errors " + esc(r.n_errors || 0) + " · faults fired " + (r.faults_fired || []).length +
      " · latency " + fmtNum(r.latency_s || 0) + " s" + (r.cost && r.cost.model_calls !== undefined ? " · model calls " + esc(r.cost.model_calls) : "") +
      (r.cost && r.cost.prompt_tokens !== undefined ? " · tokens " + esc(r.cost.prompt_tokens) + " in, " + esc(r.cost.completion_tokens || 0) + " out" : "") + "</div>";
    var log = r.turn_log, secs = r.turn_seconds || [];
    if (log && log.length) {
      log.forEach(function (t) {
        var faulted = (t.events || []).some(function (e) { return e.kind === "fault_injected"; });
        h += '<div class="turn' + (faulted ? " faulted" : "") + (t.forced ? " forced" : "") + '"><h4>' +
          (t.turn === 0 ? "start (what the agent saw first)" : "turn " + esc(t.turn)) +
          (t.turns_left !== undefined ? " · turns left " + esc(t.turns_left) : "") +
          (t.tokens !== undefined ? " · tokens " + esc(t.tokens) : "") +
          (t.turn > 0 && secs[t.turn - 1] !== undefined ? " · " + fmtNum(secs[t.turn - 1]) + " s" : "") +
          (t.forced ? " · forced start" : "") + (faulted ? ' · <span class="bad">a fault struck here</span>' : "") + "</h4>";
        if (t.action !== undefined) h += "<div><b>action</b></div><pre>" + esc(t.action) + "</pre>";
        if ((t.events || []).length) h += "<div>" + t.events.map(evChip).join("") + "</div>";
        h += "<div><b>observation</b>" + (t.obs_cut ? ' <span class="muted">(first ' + esc(t.obs.length) + " of " + esc(t.obs_cut) + " characters)</span>" : "") + "</div><pre>" + esc(t.obs) + "</pre></div>";
      });
    } else {
      h += '<p class="muted">This run kept the actions only (observations and events were not recorded: <code>agentgym eval --turn-log CHARS</code> keeps them).</p>';
      (r.actions || []).forEach(function (a, n) {
        var forced = n < (r.forced_turns || 0);
        h += '<div class="turn' + (forced ? " forced" : "") + '"><h4>turn ' + (n + 1) + " · turns left " + esc(r.T - n - 1) + (forced ? " · forced start" : "") + "</h4><pre>" + esc(a) + "</pre></div>";
      });
      if (r.faults_fired && r.faults_fired.length) h += '<p class="bad">faults fired: ' + esc(r.faults_fired.join(", ")) + "</p>";
    }
    var ok = r.success === true, cat = r.category || (r.infra_error ? "infra_error" : "not scored");
    var reason = META.reasons[cat] || (r.infra_error ? "an infrastructure failure, not the agent's: " + r.infra_error : r.no_candidate ? "the forced start has no candidate on this task" : "");
    var extra = [];
    if (r.submitted) extra.push("submitted"); else extra.push("never submitted");
    if (r.budget_exhausted) extra.push("the turn limit cut it off");
    if (r.recover_turns !== null && r.recover_turns !== undefined) extra.push("a tool call succeeded " + r.recover_turns + " turn(s) after the first fault");
    if (r.cost && r.cost.trace) extra.push("trace " + r.cost.trace);
    h += '<div class="verdict ' + (ok ? "ok" : "bad") + '"><b>verdict: ' + (ok ? "success" : r.success === false ? "failure" : "not scored") + "</b> · " +
      esc(cat) + (reason ? " — " + esc(reason) : "") + "<br>flags: " + esc((r.flags || []).join(", ") || "none") + " · " + esc(extra.join(" · ")) + "</div>";
    return h;
  }
  function openEpisode(i, other) {
    state.open = i;
    drawList();
    withRecord(i, function (r) {
      var tw = twins(i);
      var pick = '<label>side by side with <select id="twin"><option value="">nothing</option>' + tw.map(function (j) {
        return '<option value="' + j + '"' + (j === other ? " selected" : "") + ">" + esc(IDX.runs[C.run[j]] + " · T=" + C.T[j] + " · " + TB.fault[C.fault[j]] + " · " + (C.ok[j] === 1 ? "success" : C.ok[j] === 0 ? TB.category[C.category[j]] : "not scored")) + "</option>";
      }).join("") + "</select></label>";
      var left = renderEpisode(i, r);
      if (other === null || other === undefined) {
        $("episode").innerHTML = "<h3>Episode</h3>" + pick + left;
        bindTwin(i);
        return;
      }
      withRecord(other, function (r2) {
        $("episode").innerHTML = "<h3>Episode</h3>" + pick + '<div class="episodes-side"><div>' + left + "</div><div>" + renderEpisode(other, r2) + "</div></div>";
        bindTwin(i);
      });
    });
  }
  function bindTwin(i) {
    $("twin").addEventListener("change", function () { openEpisode(i, this.value === "" ? null : Number(this.value)); });
    $("episode").scrollIntoView();
  }

  // ---- start -------------------------------------------------------------------------------------
  $("title").textContent = "agentgym view: " + META.title;
  var scored = 0, ok = 0;
  for (var i = 0; i < N; i++) { if (C.ok[i] >= 0) { scored++; ok += C.ok[i]; } }
  $("counts").textContent = DIG.length + " run(s), " + N + " episodes, " + scored + " scored, " + ok + " successes";
  for (var p = 0; p < Math.min(DIG.length, 6); p++) state.plotted[p] = true;
  drawRuns(); selectRun(0); drawSuccess(); setupFilters(); drawPairs(); applyFilters();
  document.body.setAttribute("data-ready", "1");
})();
