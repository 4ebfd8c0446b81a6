// Live parts of a page: an element with data-live="URL" is replaced every few seconds by the HTML
// fragment the server renders at URL (escaped by the same templates); no framework, no JSON-to-DOM code.
// A fragment holding an element marked data-live-done is final: the polling stops. An element
// class="countdown" data-left-s="N" counts down each second from the N seconds the server said were left.
(function () {
  "use strict";
  function poll(el) {
    var url = el.getAttribute("data-live");
    var every = parseInt(el.getAttribute("data-every") || "2000", 10);
    function tick() {
      if (document.hidden) { setTimeout(tick, every); return; }
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) { if (html !== null && html !== el.innerHTML) { el.innerHTML = html; } })
        .catch(function () { /* the server restarts: try again */ })
        .finally(function () { if (!el.querySelector("[data-live-done]")) { setTimeout(tick, every); } });
    }
    setTimeout(tick, every);
  }
  var seen = new WeakMap();
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function countdowns() {
    document.querySelectorAll(".countdown[data-left-s]").forEach(function (el) {
      if (!seen.has(el)) { seen.set(el, Date.now()); }
      var left = parseFloat(el.getAttribute("data-left-s")) - (Date.now() - seen.get(el)) / 1000;
      var s = Math.max(0, Math.floor(left));
      el.textContent = Math.floor(s / 3600) + ":" + pad(Math.floor(s / 60) % 60) + ":" + pad(s % 60);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-live]").forEach(poll);
    countdowns();
    setInterval(countdowns, 1000);
  });
})();
