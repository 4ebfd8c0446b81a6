// Live parts of a page: an element with data-live="URL" is replaced every few seconds by the HTML
// fragment the server renders at URL (escaped by the same templates); no framework, no JSON-to-DOM code.
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
        .finally(function () { setTimeout(tick, every); });
    }
    setTimeout(tick, every);
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-live]").forEach(poll);
  });
})();
