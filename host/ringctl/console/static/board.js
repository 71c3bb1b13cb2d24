// The players' board: live from /ws, nothing to click. Records result-to-screen latency
// (host event time to the frame after the DOM shows it) in window.__boardLatencies.
"use strict";
(() => {
  window.__boardLatencies = [];
  const LETTER = {heads: "H", tails: "T", odds: "O", "no-spin": "–"};
  const $ = (id) => document.getElementById(id);
  function show(v) {
    $("b-state").textContent = v.state;
    $("b-spinner").textContent = v.spinner ? v.spinner.name + (v.spinner.calls ? " — " + v.spinner.calls.toUpperCase() : "") : "No spinner";
    $("b-progress").textContent = v.progress || "";
    $("b-odds").textContent = v.odds;
    $("b-last").textContent = (v.last || "—").toUpperCase();
    $("b-last").className = "b-last result-" + (v.last || "none");
    const road = $("road");
    road.innerHTML = "";
    for (const r of v.results) {
      const li = document.createElement("li");
      li.className = "result-" + r.result;
      li.title = "spin " + r.spin;
      li.textContent = LETTER[r.result] || "?";
      road.appendChild(li);
    }
  }
  Ring.live((msg) => {
    const v = msg.kind === "hello" ? msg.data.board : msg.board;
    if (v) show(v);
    if (msg.kind === "result" && msg.t) {
      requestAnimationFrame(() => window.__boardLatencies.push(Date.now() / 1000 - msg.t));
    }
  }, (up) => { $("b-live").textContent = up ? "live" : "reconnecting…"; });
})();
