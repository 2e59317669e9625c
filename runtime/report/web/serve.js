// runtime/report/web/serve.js: the page of `sprof serve` (runtime/store/serve.c).
//
// The state is the URL's fragment (#from=..&to=..&host=..&comm=..&by=..&bfrom=..), so every view
// is a link. A timeline of samples by host or program (stacked bars, one request for the
// whole range); a range dragged on it is drawn as a flame graph (the svg writer's, in an
// iframe: its own zoom and search) beside the functions that took most of it. "Compare"
// keeps the selection (and its filters) as the base; the next selection is drawn against it
// as a differential flame graph. Plain JavaScript: nothing to fetch, nothing to build.
"use strict";

var COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
              "#ff9da7", "#9c755f"];
var state = {};      // from, to (the timeline), sfrom, sto (the selection), host, comm, by, base...
var summary = null;
var series = null;   // the last timeline answer

function $(id) { return document.getElementById(id); }

function status(text) { $("status").textContent = text || ""; }

function getJSON(url) {
  return fetch(url).then(function (r) {
    return r.json().then(function (j) {
      if (!r.ok) throw new Error(j.error || r.statusText);
      return j;
    });
  });
}

function qs(o) {
  return Object.keys(o).filter(function (k) { return o[k] !== undefined && o[k] !== ""; })
    .map(function (k) { return k + "=" + encodeURIComponent(o[k]); }).join("&");
}

function readHash() {
  var s = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i > 0) s[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  ["from", "to", "sfrom", "sto", "bfrom", "bto"].forEach(function (k) {
    if (s[k] !== undefined) s[k] = +s[k];
  });
  return s;
}

function writeHash() {
  var h = qs(state);
  if (location.hash.replace(/^#/, "") !== h) history.replaceState(null, "", "#" + h);
}

function fmtTime(t) {
  return new Date(t * 1000).toISOString().replace("T", " ").replace(/\.000Z$/, "");
}

function fillSelect(sel, items, value) {
  items.forEach(function (it) {
    var o = document.createElement("option");
    o.value = o.textContent = it[0];
    sel.appendChild(o);
  });
  sel.value = value || "";
}

// ---- the timeline ----------------------------------------------------------------------

function loadTimeline() {
  status("");
  return getJSON("api/timeline?" + qs({ from: state.from, to: state.to, by: state.by,
                                         host: state.host, comm: state.comm }))
    .then(function (t) { series = t; drawTimeline(); })
    .catch(function (e) { status("timeline: " + e.message); });
}

function xOf(t, w) { return (t - state.from) / (state.to - state.from) * w; }
function tOf(x, w) { return Math.round(state.from + x / w * (state.to - state.from)); }

function drawTimeline() {
  var svg = $("timeline"), w = svg.clientWidth || 1000, h = 150, top = 10, bottom = 20;
  var totals = {}, max = 1, ns = "http://www.w3.org/2000/svg", html = "";
  series.series.forEach(function (s) {
    s.points.forEach(function (p) { totals[p[0]] = (totals[p[0]] || 0) + p[1]; });
  });
  Object.keys(totals).forEach(function (k) { if (totals[k] > max) max = totals[k]; });
  var acc = {}, bw = Math.max(1, xOf(state.from + series.step, w) - 1);
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  series.series.forEach(function (s, i) {
    s.points.forEach(function (p) {
      var r = document.createElementNS(ns, "rect"), v = p[1] / max * (h - top - bottom);
      var y0 = acc[p[0]] || 0;
      r.setAttribute("x", xOf(p[0], w));
      r.setAttribute("width", bw);
      r.setAttribute("y", h - bottom - y0 - v);
      r.setAttribute("height", v);
      r.setAttribute("fill", COLORS[i % COLORS.length]);
      r.setAttribute("class", "bar");
      r.setAttribute("data-key", s.key);
      var title = document.createElementNS(ns, "title");
      title.textContent = s.key + " " + fmtTime(p[0]) + ": " + p[1] + " samples";
      r.appendChild(title);
      svg.appendChild(r);
      acc[p[0]] = y0 + v;
    });
    html += '<span><i style="background:' + COLORS[i % COLORS.length] + '"></i>' +
            s.key.replace(/&/g, "&amp;").replace(/</g, "&lt;") + "</span>";
  });
  $("legend").innerHTML = html;
  [state.from, (state.from + state.to) / 2, state.to].forEach(function (t, i) {
    var tx = document.createElementNS(ns, "text");
    tx.setAttribute("x", i === 0 ? 2 : i === 1 ? w / 2 - 50 : w - 110);
    tx.setAttribute("y", h - 5);
    tx.textContent = fmtTime(Math.round(t)).slice(5);
    svg.appendChild(tx);
  });
  drawSelections();
}

function band(cls, from, to) {
  var svg = $("timeline"), w = svg.clientWidth || 1000;
  var r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  r.setAttribute("class", cls);
  r.setAttribute("x", xOf(from, w));
  r.setAttribute("width", Math.max(1, xOf(to, w) - xOf(from, w)));
  r.setAttribute("y", 0);
  r.setAttribute("height", 130);
  svg.appendChild(r);
}

function drawSelections() {
  [].slice.call(document.querySelectorAll("#timeline .sel, #timeline .base"))
    .forEach(function (n) { n.parentNode.removeChild(n); });
  if (state.bfrom) band("base", state.bfrom, state.bto);
  if (state.sfrom) band("sel", state.sfrom, state.sto);
}

function dragSelect() {
  var svg = $("timeline"), start = null;
  svg.addEventListener("mousedown", function (e) {
    start = e.clientX - svg.getBoundingClientRect().left;
  });
  window.addEventListener("mouseup", function (e) {
    if (start === null) return;
    var w = svg.clientWidth, end = e.clientX - svg.getBoundingClientRect().left;
    var a = Math.max(0, Math.min(start, end)), b = Math.min(w, Math.max(start, end));
    start = null;
    if (b - a < 3) { // a click: one bar's width around it
      a = Math.max(0, a - 3); b = Math.min(w, b + 3);
    }
    select(tOf(a, w), Math.max(tOf(b, w), tOf(a, w) + 1));
  });
}

function select(from, to) {
  state.sfrom = from;
  state.sto = to;
  writeHash();
  drawSelections();
  loadViews();
}

// ---- the flame graph and the functions --------------------------------------------------

function viewQuery() {
  var q = { from: state.sfrom, to: state.sto, host: state.host, comm: state.comm,
            width: Math.max(400, $("flame").clientWidth - 24) };
  if (state.bfrom) {
    q.bfrom = state.bfrom; q.bto = state.bto;
    q.bhost = state.bhost || ""; q.bcomm = state.bcomm || "";
  }
  return qs(q);
}

function loadViews() {
  if (!state.sfrom) return;
  var diff = !!state.bfrom, q = viewQuery();
  $("selection").textContent = (diff ? "comparing " : "selected ") + fmtTime(state.sfrom) +
    " - " + fmtTime(state.sto) + " UTC" + (diff ? " against the base " + fmtTime(state.bfrom) +
    " - " + fmtTime(state.bto) : "");
  $("flame").onload = function () { applySearch(); };
  $("flame").src = (diff ? "api/diff.svg?" : "api/flame.svg?") + q;
  getJSON((diff ? "api/difftop?" : "api/top?") + q + "&n=100")
    .then(function (t) { drawTop(t, diff); })
    .catch(function (e) { status("functions: " + e.message); });
}

function pct(v, total) { return total ? (100 * v / total) : 0; }

function drawTop(t, diff) {
  var head = diff ? "<tr><th>function</th><th>total</th><th>change</th><th>self</th><th>change</th></tr>"
                  : "<tr><th>function</th><th>total</th><th>self</th><th>samples</th></tr>";
  var rows = t.functions.map(function (f) {
    var tot = pct(f.total, t.total), self = pct(f.self, t.total);
    var name = f.name.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    if (!diff)
      return "<tr><td>" + name + "</td><td>" + tot.toFixed(2) + "%</td><td>" + self.toFixed(2) +
             "%</td><td>" + f.total + "</td></tr>";
    var dt = tot - pct(f.base_total, t.base_total), ds = self - pct(f.base_self, t.base_total);
    return "<tr><td>" + name + "</td><td>" + tot.toFixed(2) + '%</td><td class="' +
           (dt > 0 ? "up" : "down") + '">' + (dt > 0 ? "+" : "") + dt.toFixed(2) + "</td><td>" +
           self.toFixed(2) + '%</td><td class="' + (ds > 0 ? "up" : "down") + '">' +
           (ds > 0 ? "+" : "") + ds.toFixed(2) + "</td></tr>";
  });
  document.querySelector("#top thead").innerHTML = head;
  document.querySelector("#top tbody").innerHTML = rows.join("");
}

function applySearch() {
  var term = $("search").value, win = $("flame").contentWindow;
  if (win && typeof win.search === "function") {
    if (term) win.search(term);
    else if (typeof win.resetSearch === "function") win.resetSearch();
  }
}

// ---- controls ------------------------------------------------------------------------------

function setRange(span) {
  var last = summary.last + 1;
  state.to = last;
  state.from = span ? Math.max(summary.first, last - span) : summary.first;
  if (state.to - state.from < 60) state.from = state.to - 60;
  delete state.sfrom; delete state.sto;
  writeHash();
  loadTimeline();
}

function init() {
  dragSelect();
  getJSON("api/summary").then(function (s) {
    summary = s;
    $("table").textContent = s.table + ": " + s.samples + " samples";
    var h = readHash();
    state = h;
    state.by = h.by || "host";
    fillSelect($("host"), s.hosts, h.host);
    fillSelect($("comm"), s.comms, h.comm);
    $("by").value = state.by;
    if (!s.first) { status("the table is empty"); return; }
    if (!state.from || !state.to) setRange(3600);
    else loadTimeline().then(loadViews);
    $("compare").textContent = state.bfrom ? "Clear comparison" : "Compare...";
  }).catch(function (e) { status("summary: " + e.message); });
  ["host", "comm", "by"].forEach(function (id) {
    $(id).addEventListener("change", function () {
      state[id] = $(id).value;
      writeHash();
      loadTimeline().then(loadViews);
    });
  });
  [].slice.call(document.querySelectorAll(".ranges button")).forEach(function (b) {
    b.addEventListener("click", function () { setRange(+b.getAttribute("data-span")); });
  });
  $("search").addEventListener("change", applySearch);
  $("compare").addEventListener("click", function () {
    if (state.bfrom) {
      delete state.bfrom; delete state.bto; delete state.bhost; delete state.bcomm;
      $("compare").textContent = "Compare...";
    } else if (state.sfrom) {
      state.bfrom = state.sfrom; state.bto = state.sto;
      state.bhost = state.host || ""; state.bcomm = state.comm || "";
      $("compare").textContent = "Clear comparison";
      status("base kept: select the range (or change the filters) to compare with it");
    } else {
      status("select a range first: it becomes the base of the comparison");
      return;
    }
    writeHash();
    drawSelections();
    loadViews();
  });
  window.addEventListener("resize", function () { if (series) drawTimeline(); });
}

init();
