// The resolver page: plays the steps the server computed (judge/scoreboard/resolver.py) over the board.
// Each step gives the teams' order and the rows that changed; rows are absolutely placed, so a team that
// rises slides to its new place. Space / Enter / Right: next step; Backspace / Left: back; F: full screen.
(function () {
  "use strict";
  var ROW_PX = 34;
  function text(el, value) { el.textContent = value === undefined || value === null ? "" : String(value); }

  document.addEventListener("DOMContentLoaded", function () {
    var data = document.getElementById("resolver-data");
    var board = document.getElementById("resolver-board");
    if (!data || !board) { return; }
    var steps = JSON.parse(data.textContent);
    var els = {};
    var at = 0;

    function rowEl(team) {
      if (!els[team]) {
        var el = document.createElement("div");
        el.className = "resolver-row";
        el.setAttribute("data-team", team);
        board.appendChild(el);
        els[team] = el;
      }
      return els[team];
    }

    function fill(el, row) {
      el.innerHTML = "";
      var parts = [["rank", row.rank], ["name", row.name], ["num solved", row.solved], ["num time", row.time]];
      parts.forEach(function (p) {
        var span = document.createElement("span");
        span.className = p[0];
        text(span, p[1]);
        if (p[0] === "name" && row.org) {
          var org = document.createElement("small");
          text(org, " " + row.org);
          span.appendChild(org);
        }
        el.appendChild(span);
      });
      row.cells.forEach(function (c) {
        var span = document.createElement("span");
        span.className = "cell " + c[0];
        text(span, c[1]);
        el.appendChild(span);
      });
    }

    function show(k) {
      var rows = {};
      for (var j = 0; j <= k; j++) { Object.assign(rows, steps[j].rows); }
      var step = steps[k];
      step.order.forEach(function (team, i) {
        var el = rowEl(team);
        fill(el, rows[team]);
        el.style.top = (i * ROW_PX) + "px";
        el.classList.toggle("focus", team === step.focus);
      });
      board.style.height = (step.order.length * ROW_PX) + "px";
      var citation = document.getElementById("resolver-citation");
      if (step.citations.length) {
        citation.hidden = false;
        text(citation, rows[step.focus].name + ": " + step.citations.join(" · "));
      } else {
        citation.hidden = true;
      }
      text(document.getElementById("resolver-step"), k + 1);
      document.body.setAttribute("data-step", String(k + 1));
      document.body.setAttribute("data-last", k === steps.length - 1 ? "yes" : "no");
      if (step.focus && els[step.focus].scrollIntoView) {
        els[step.focus].scrollIntoView({ block: "center", behavior: "smooth" });
      }
    }

    document.addEventListener("keydown", function (e) {
      if (e.key === " " || e.key === "Enter" || e.key === "ArrowRight") {
        e.preventDefault();
        if (at < steps.length - 1) { at += 1; show(at); }
      } else if (e.key === "Backspace" || e.key === "ArrowLeft") {
        e.preventDefault();
        if (at > 0) { at -= 1; show(at); }
      } else if (e.key === "f" || e.key === "F") {
        var stage = document.getElementById("resolver-stage");
        if (document.fullscreenElement) { document.exitFullscreen(); } else if (stage.requestFullscreen) { stage.requestFullscreen(); }
      }
    });
    show(0);
  });
})();
