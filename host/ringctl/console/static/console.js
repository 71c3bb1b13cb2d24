// Ring console pages: one small script, no build step. Talks to /api/* and /ws only.
"use strict";
const Ring = (() => {
  let csrf = (document.querySelector('meta[name="csrf"]') || {}).content || null;
  let queue = Promise.resolve();

  // POSTs go one at a time: each spends the single-use CSRF token the previous answer handed out.
  function post(url, body) {
    const p = queue.then(async () => {
      const r = await fetch(url, {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf || ""},
        body: JSON.stringify(body || {})});
      const next = r.headers.get("X-CSRF-Token");
      if (next) csrf = next;
      let data = {};
      try { data = await r.json(); } catch (e) { data = {error: "HTTP " + r.status}; }
      data.status = r.status;
      return data;
    });
    queue = p.catch(() => {});
    return p;
  }

  // The host's events; reconnects by itself. onmsg(msg) for every message (hello first).
  function live(onmsg, onstatus) {
    let delay = 250;
    function open() {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
      ws.onopen = () => { delay = 250; onstatus && onstatus(true); };
      ws.onmessage = (e) => { try { onmsg(JSON.parse(e.data)); } catch (err) { console.error(err); } };
      ws.onclose = () => { onstatus && onstatus(false); setTimeout(open, delay); delay = Math.min(5000, delay * 2); };
    }
    open();
  }

  function camera(img, info) {
    window.__camFrames = 0;
    let url = null, t0 = performance.now(), last = performance.now();
    // a camera that stops sending is shown as stalled, never as a live picture
    setInterval(() => {
      const age = (performance.now() - last) / 1000;
      img.classList.toggle("stale", age > 1.5);
      if (age > 1.5 && info) { info.textContent = "CAMERA STALLED: no new frame for " + age.toFixed(0) + " s"; info.className = "small stale-note"; }
    }, 500);
    function open() {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/camera");
      ws.binaryType = "blob";
      ws.onmessage = (e) => {
        const next = URL.createObjectURL(e.data);
        img.onload = () => {
          if (url) URL.revokeObjectURL(url);
          url = next; window.__camFrames++; last = performance.now();
          if (info) info.className = "small";
          const s = (performance.now() - t0) / 1000;
          if (info && window.__camFrames % 10 === 0) info.textContent = "live · " + (window.__camFrames / s).toFixed(1) + " frames/s";
        };
        img.src = next;
      };
      ws.onclose = () => { if (info) info.textContent = "camera disconnected, retrying…"; setTimeout(open, 1000); };
    }
    open();
  }

  const $ = (id) => document.getElementById(id);
  function text(id, v) { const el = $(id); if (el) el.textContent = v == null ? "—" : String(v); }
  function esc(s) { const d = document.createElement("div"); d.textContent = s == null ? "" : String(s); return d.innerHTML; }

  function say(reply) {
    const el = $("reply");
    if (!el) return;
    const ok = reply.ok;
    el.className = "reply " + (ok ? "good" : "bad");
    let msg = ok ? (reply.message || "done") : ("refused" + (reply.rule ? " (" + reply.rule + ")" : "") + ": " + (reply.message || reply.error || "HTTP " + reply.status));
    el.textContent = msg;
    if (reply.data && reply.data.events) {
      for (const ev of reply.data.events) if (ev.event === "rejected") el.textContent += " — " + ev.reason + " [" + ev.rule + "]";
    }
  }
  function command(obj) { return post("/api/commands", obj).then((r) => { say(r); return r; }); }

  // snapshot.spin is {number, state, result}; the reasons come with the host's verdict
  function spinInfo(snap) {
    const spin = snap.spin || {};
    const v = snap.verdict && snap.verdict.spin === spin.number ? snap.verdict : {};
    return {n: spin.number, result: spin.result || v.result || null, reasons: v.reasons || [],
            rules: v.rules || [], finished: spin.state === "settled"};
  }

  function render(snap) {
    text("phase", snap.phase);
    text("light-name", snap.light);
    const light = $("light");
    if (light) light.dataset.light = snap.light || "off";
    const sp = spinInfo(snap);
    text("spin-no", sp.n);
    if ($("verdict")) {
      $("verdict").textContent = sp.result ? sp.result.toUpperCase() : "—";
      $("verdict").className = "big result-" + (sp.result || "none");
      $("reasons").innerHTML = sp.reasons.map((r) => "<li>" + esc(r) + "</li>").join("") +
        (sp.rules.length ? "<li>rules: " + esc(sp.rules.join(", ")) + "</li>" : "");
    }
    const table = snap.table || {};
    if ($("table-state")) {
      const g = table.game || {};
      $("table-state").textContent = "betting " + (table.betting || "—") + " · spinner " + (table.spinning || "none") +
        (g.name ? " " + g.name : "") + (g.calls ? " calls " + g.calls + " (" + (g.count || 0) + " of 3)" : "") +
        " · odds run " + (table.odds_run || 0) + " of 5";
    }
    if ($("spinner-now")) $("spinner-now").textContent = table.spinning ? (table.spinning + " " + ((table.game || {}).name || "")) : "no spinner";
    if ($("wagers")) {
      $("wagers").innerHTML = (table.open_wagers || table.wagers || []).filter((w) => w.status === "open").map((w) =>
        "<tr><td>" + esc(w.id) + "</td><td>" + esc(w.on) + "</td><td>" + esc(w.amount) + "</td><td>" + esc(w.status) + "</td></tr>").join("");
    }
    if ($("alarms")) renderAlarms(snap.alarms || []);
    showUnsure(sp);
  }

  let shownStills = null;
  function showUnsure(sp) {
    const box = $("unsure");
    if (!box) return;
    const unsure = sp.result === "unsure" && !sp.finished;
    box.hidden = !unsure;
    if (unsure && shownStills !== sp.n) {
      shownStills = sp.n;
      fetch("/api/spins/" + sp.n + "/frames", {credentials: "same-origin"}).then((r) => r.json()).then((d) => {
        $("stills").innerHTML = (d.frames || []).map((f) => '<a href="/frames/' + f.seq + '.jpg" target="_blank"><img src="/frames/' +
          f.seq + '.jpg?crop=1" alt="still frame ' + f.seq + ' around the coins"></a>').join("") ||
          "<p>no still frame (camera stalled or none): look at the coins</p>";
      });
    }
  }

  function renderAlarms(alarms) {
    const rows = alarms.map((a) =>
      "<tr><td>" + esc(a.t ? new Date(a.t * 1000).toLocaleTimeString() : "") + "</td><td>" + esc(a.kind) + "</td><td>" +
      esc(a.message || a.text || "") + '</td><td><button class="ack" data-id="' + esc(a.id) + '">Acknowledge</button></td></tr>');
    const html = rows.join("") || '<tr><td colspan="4">none</td></tr>';
    if ($("alarms").innerHTML !== html) $("alarms").innerHTML = html;     // no flicker, no lost clicks
  }

  let refreshTimer = null;
  function refresh() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      fetch("/api/state", {credentials: "same-origin"}).then((r) => r.json()).then(render);
    }, 60);
  }

  function logEvent(msg) {
    const ol = $("events");
    if (!ol || msg.kind === "hello") return;
    const li = document.createElement("li");
    const d = msg.data || {};
    li.textContent = new Date((msg.t || Date.now() / 1000) * 1000).toLocaleTimeString() + " " + msg.kind + " " +
      JSON.stringify(d).slice(0, 160);
    ol.insertBefore(li, ol.firstChild);
    while (ol.children.length > 100) ol.removeChild(ol.lastChild);
    if (msg.kind === "settlement" && $("settlements")) {
      const s = document.createElement("li");
      const evs = d.events || [d];
      s.textContent = evs.map((e) => (e.event || "") + " " + (e.bet || "") + " " + (e.on || "") + " " + (e.outcome || "") +
        (e.pays != null ? " pays " + e.pays : "") + " [" + (e.rule || "") + "]").join("; ");
      $("settlements").insertBefore(s, $("settlements").firstChild);
    }
  }

  function controls() {
    document.addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (!b) return;
      if (b.dataset.call) command({cmd: "call", result: b.dataset.call, reason: ($("call-reason") || {}).value || ""});
      else if (b.dataset.op) command({cmd: "table", op: JSON.parse(b.dataset.op)});
      else if (b.classList.contains("ack")) command({cmd: "ack-alarm", id: isNaN(+b.dataset.id) ? b.dataset.id : +b.dataset.id}).then(refresh);
      else if (b.dataset.lost) lost(b.dataset.lost);
      else if (b.id === "nospin") command({cmd: "nospin", reason: $("nospin-reason").value});
      else if (b.id === "arm") command({cmd: "arm"});
      else if (b.id === "sp-in") command({cmd: "table", op: {op: "spinner", calls: $("sp-calls").value, name: $("sp-name").value || "spinner"}});
      else if (b.id === "w-bet") command({cmd: "table", op: {op: "bet", id: $("w-id").value, on: $("w-on").value, amount: +$("w-amount").value}});
      else if (b.id === "w-change") command({cmd: "table", op: {op: "change", id: $("w-id").value, amount: +$("w-amount").value}});
      else if (b.id === "w-withdraw") command({cmd: "table", op: {op: "withdraw", id: $("w-id").value}});
      else if (b.id === "verify") post("/api/verify", {}).then((r) => {
        $("chain").textContent = r.ok == null ? (r.error || "refused") : ((r.ok ? "intact" : "PROBLEMS: " + r.problems.map((p) => "seq " + p.seq + " " + p.problem).join(", ")) +
          " · " + r.records + " records · head seq " + r.head.seq + " " + r.head.hash + " · checked just now");
      });
    });
  }

  function lost(step) {
    const steps = {
      "start": () => ({cmd: "lost", n: +$("lost-n").value}),
      "found": () => ({cmd: "lost-found", n: +$("lost-found").value}),
      "check-ok": () => ({cmd: "lost-check", ok: true}),
      "check-bad": () => ({cmd: "lost-check", ok: false}),
      "offer-original": () => ({cmd: "lost-offer", choice: "original"}),
      "offer-new": () => ({cmd: "lost-offer", choice: "new"}),
      "newset": () => ({cmd: "lost-newset", name: $("lost-set").value, continue: $("lost-continue").checked}),
    };
    command(steps[step]()).then((r) => {
      const todo = r.data && r.data.todo;
      if (todo) say({ok: r.ok, message: (r.message || "") + (todo.length ? " — still to do: " + todo.join("; ") : " — play may resume")});
    });
  }

  function page() {
    const kind = document.body.dataset.page;
    if (kind !== "boxer" && kind !== "supervisor") return;
    controls();
    const cam = $("cam");
    if (cam) camera(cam, $("cam-info"));
    live((msg) => {
      if (msg.kind === "hello") { render(msg.data); return; }
      logEvent(msg);
      refresh();
    });
  }
  document.addEventListener("DOMContentLoaded", page);
  return {post, live, command, render};
})();
