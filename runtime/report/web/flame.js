// runtime/report/web/flame.js: the script of every flame graph sprof writes (runtime/report/svg.c
// puts it into the SVG): zoom on click, search by regular expression, tooltips in the details line.
"use strict";
var svg, frames, details, matched, unzoombtn, searchbtn, W, PAD, total, searching = null;
var FONTW = 7;
function init(evt) {
	svg = document.documentElement;
	frames = document.getElementById("frames");
	details = document.getElementById("details");
	matched = document.getElementById("matched");
	unzoombtn = document.getElementById("unzoom");
	searchbtn = document.getElementById("search");
	W = +svg.getAttribute("data-width");
	PAD = +svg.getAttribute("data-pad");
	total = +svg.getAttribute("data-total");
	// the root is at the bottom: show it first when the graph is taller than the window
	var h = +svg.getAttribute("height");
	if (window.innerHeight && h > window.innerHeight) window.scrollTo(0, h);
	frames.addEventListener("click", function (e) {
		var g = frameOf(e.target);
		if (g) zoom(g);
	});
	frames.addEventListener("mouseover", function (e) {
		var g = frameOf(e.target);
		if (g) details.textContent = g.querySelector("title").textContent;
	});
	frames.addEventListener("mouseout", function () { details.textContent = " "; });
	unzoombtn.addEventListener("click", unzoom);
	searchbtn.addEventListener("click", searchPrompt);
	document.addEventListener("keydown", function (e) {
		if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) {
			e.preventDefault();
			searchPrompt();
		} else if (e.key === "Escape") {
			unzoom();
			resetSearch();
		}
	});
	try {
		var q = new URLSearchParams(document.location.search);
		if (q.get("s")) search(q.get("s"));
	} catch (err) {}
}
function frameOf(t) {
	while (t && t !== frames) {
		if (t.classList && t.classList.contains("f")) return t;
		t = t.parentNode;
	}
	return null;
}
function fit(g, w) {
	var name = g.getAttribute("data-name"), n = Math.floor((w - 6) / FONTW);
	var t = g.querySelector("text");
	if (n < 3) t.textContent = "";
	else if (name.length <= n) t.textContent = name;
	else t.textContent = name.substring(0, n - 2) + "..";
}
function place(g, x, w) {
	var r = g.querySelector("rect"), t = g.querySelector("text");
	r.setAttribute("x", x.toFixed(2));
	r.setAttribute("width", Math.max(w, 0).toFixed(2));
	t.setAttribute("x", (x + 3).toFixed(2));
	fit(g, w);
}
function attrs(g) {
	return { s: +g.getAttribute("data-s"), n: +g.getAttribute("data-n"), d: +g.getAttribute("data-d") };
}
function zoom(z) {
	var a = attrs(z), scale = (W - 2 * PAD) / a.n, all = frames.children;
	for (var i = 0; i < all.length; i++) {
		var g = all[i], b = attrs(g);
		g.classList.remove("hide", "parent");
		if (b.d < a.d && b.s <= a.s && b.s + b.n >= a.s + a.n) {
			g.classList.add("parent");
			place(g, PAD, W - 2 * PAD);
		} else if (b.d >= a.d && b.s >= a.s && b.s + b.n <= a.s + a.n) {
			place(g, PAD + (b.s - a.s) * scale, b.n * scale);
		} else {
			g.classList.add("hide");
		}
	}
	z.classList.add("zoomed");
	unzoombtn.classList.remove("hide");
	svg.setAttribute("data-zoomed", z.getAttribute("data-name"));
}
function unzoom() {
	var scale = (W - 2 * PAD) / total, all = frames.children;
	for (var i = 0; i < all.length; i++) {
		var g = all[i], b = attrs(g);
		g.classList.remove("hide", "parent", "zoomed");
		place(g, PAD + b.s * scale, b.n * scale);
	}
	unzoombtn.classList.add("hide");
	svg.removeAttribute("data-zoomed");
}
function searchPrompt() {
	if (searching !== null) {
		resetSearch();
		return;
	}
	var term = prompt("Search for a frame (regular expression or text):", "");
	if (term) search(term);
}
function search(term) {
	var re = null, all = frames.children, hits = [], sum = 0, end = -1;
	try { re = new RegExp(term); } catch (err) {}
	for (var i = 0; i < all.length; i++) {
		var g = all[i], name = g.getAttribute("data-name");
		var hit = re ? re.test(name) : name.indexOf(term) >= 0;
		g.classList.toggle("match", hit);
		if (hit) hits.push(attrs(g));
	}
	hits.sort(function (x, y) { return x.s - y.s; });
	for (var j = 0; j < hits.length; j++) {
		var s = Math.max(hits[j].s, end), e = hits[j].s + hits[j].n;
		if (e > s) sum += e - s;
		end = Math.max(end, e);
	}
	searching = term;
	searchbtn.querySelector("text").textContent = "Reset Search";
	matched.textContent = "Matched: " + (total ? 100 * sum / total : 0).toFixed(2) + "%";
	svg.setAttribute("data-matched", String(sum));
	return sum;
}
function resetSearch() {
	var all = frames.children;
	for (var i = 0; i < all.length; i++) all[i].classList.remove("match");
	searching = null;
	searchbtn.querySelector("text").textContent = "Search";
	matched.textContent = " ";
	svg.removeAttribute("data-matched");
}
