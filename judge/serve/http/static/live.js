// Live parts of a page: an element with data-live="URL" is replaced every few seconds by the HTML
// fragment the server renders at URL (escaped by the same templates); no framework, no JSON-to-DOM code.
// A fragment holding an element marked data-live-done is final: the polling stops. An element
// class="countdown" data-left-s="N" counts down each second from the N seconds the server said were left;
// at 0 its live part is fetched at once (the contest starts or ends: the clock's next line).
// A <time class="clock" datetime="ISO"> is written in the viewer's own time zone.
// A form with data-confirm="QUESTION" asks it (confirm()) and sends confirmed=yes only on OK (http/confirm.py;
// without scripts the server asks on a page of its own).
(function () {
  "use strict";
  var now = {};  // a live element's id -> fetch it now
  function localize(root) {
    root.querySelectorAll("time.clock[datetime]").forEach(function (el) {
      var t = new Date(el.getAttribute("datetime"));
      if (isNaN(t.getTime())) { return; }
      var text = t.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
      if (t.toDateString() !== new Date().toDateString()) { text = t.toLocaleDateString() + " " + text; }
      el.textContent = text;
      el.title = el.getAttribute("datetime");
    });
  }
  var polled = 0;
  function poll(el) {
    var url = el.getAttribute("data-live");
    var every = parseInt(el.getAttribute("data-every") || "2000", 10);
    var timer = null;
    function tick() {
      timer = null;
      if (document.hidden) { timer = setTimeout(tick, every); return; }
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html !== null && html !== el.innerHTML) { el.innerHTML = html; localize(el); }
        })
        .catch(function () { /* the server restarts: try again */ })
        .finally(function () { if (!el.querySelector("[data-live-done]")) { timer = setTimeout(tick, every); } });
    }
    if (el.querySelector("[data-live-done]")) { return; }  // final already
    var key = el.id || "live-" + (polled += 1);
    now[key] = function () { if (timer !== null) { clearTimeout(timer); tick(); } };
    el.setAttribute("data-live-key", key);
    timer = setTimeout(tick, every);
  }
  var seen = new WeakMap();
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function countdowns() {
    document.querySelectorAll(".countdown[data-left-s]").forEach(function (el) {
      if (!seen.has(el)) { seen.set(el, Date.now()); }
      var left = parseFloat(el.getAttribute("data-left-s")) - (Date.now() - seen.get(el)) / 1000;
      var s = Math.max(0, Math.floor(left));
      el.textContent = Math.floor(s / 3600) + ":" + pad(Math.floor(s / 60) % 60) + ":" + pad(s % 60);
      if (left <= 0 && !el.hasAttribute("data-over")) {
        el.setAttribute("data-over", "1");
        var live = el.closest("[data-live-key]");
        // a second later: the server's clock says the contest has started (or ended) by then
        if (live && now[live.getAttribute("data-live-key")]) { setTimeout(now[live.getAttribute("data-live-key")], 1000); }
      }
    });
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    var question = form.getAttribute && form.getAttribute("data-confirm");
    if (!question) { return; }
    var field = form.querySelector("input[name=confirmed]");
    if (field && field.value === "yes") { return; }
    e.preventDefault();
    if (window.confirm(question)) {
      if (field) { field.value = "yes"; }
      form.submit();
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    localize(document);
    document.querySelectorAll("[data-live]").forEach(poll);
    countdowns();
    setInterval(countdowns, 1000);
  });
})();
