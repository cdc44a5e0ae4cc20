// kozyr's Mini App: the table and your hand, live. Plain JS, no build step.
// Everything shown comes from the server as data (api/state, api/events);
// every tap is a button the chat hand has too, sent to api/press.
"use strict";

(function () {
  // Telegram's bridge loads on its own (`async`), often after this runs.
  let tg = window.Telegram && window.Telegram.WebApp;
  const fragment = new URLSearchParams(location.hash.slice(1));
  // Telegram's bridge gives the signed init data; outside Telegram (tests)
  // it is in the URL fragment, as Telegram passes it to the page.
  const initData = (tg && tg.initData) || fragment.get("tgWebAppData") || "";
  const query = new URLSearchParams(location.search);
  const startParam =
    (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) ||
    fragment.get("tgWebAppStartParam") || "";
  const table = query.get("table") || startParam;
  const $ = (id) => document.getElementById(id);

  let state = null;
  let lastKey = "";
  let deadlineAt = null;
  let source = null;

  // Telegram keeps its loading placeholder until the page says it is
  // ready, and opens the app at half height until it asks to expand: both
  // once the bridge is there, now or when its script has loaded.
  function withBridge(then) {
    if (tg) { then(tg); return; }
    const script = document.getElementById("tg-bridge");
    if (!script) return;
    script.addEventListener("load", () => {
      tg = window.Telegram && window.Telegram.WebApp;
      if (tg) then(tg);
    }, { once: true });
  }
  withBridge((bridge) => { bridge.ready(); bridge.expand(); });

  function newId() {
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }

  function rich(el, spans) {
    el.textContent = "";
    for (const s of spans || []) {
      let node = document.createTextNode(s.t);
      if (s.m) { const c = document.createElement("code"); c.appendChild(node); node = c; }
      if (s.i) { const i = document.createElement("i"); i.appendChild(node); node = i; }
      if (s.b) { const b = document.createElement("b"); b.appendChild(node); node = b; }
      el.appendChild(node);
    }
  }

  function toast(text) {
    const t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 2500);
  }

  function showError(text) {
    // A refused page shows why, and no empty table.
    $("board").hidden = true;
    $("table-panel").hidden = true;
    const e = $("error");
    e.textContent = text;
    e.hidden = false;
  }

  function tick() {
    const el = $("timer");
    if (deadlineAt === null || !state || !state.your_turn) { el.hidden = true; return; }
    const left = Math.max(0, Math.ceil((deadlineAt - Date.now()) / 1000));
    el.hidden = false;
    el.textContent = "⏳ " + left + " s";
  }
  setInterval(tick, 500);

  function render(s) {
    const wasTurn = state && state.your_turn;
    // The same state again (an answer and its event): nothing to redraw,
    // and a card under a finger stays the same element.
    const key = JSON.stringify(Object.assign({}, s, { seq: 0, deadline_in_ms: 0 }));
    // An answer to a press may arrive after a newer event, and an event
    // made before a press after its answer: keep the newest.
    if (state && s.table === state.table && (s.version < state.version || s.seq < state.seq)) return;
    if (key === lastKey) { state = s; return; }
    lastKey = key;
    state = s;
    document.body.dataset.version = String(s.version);
    document.body.dataset.phase = s.phase;
    document.body.dataset.yourTurn = String(s.your_turn);
    document.documentElement.lang = s.lang;
    $("title").textContent = s.title;
    $("table-label").textContent = s.words.table;

    drawBoard(s);
    rich($("table-text"), s.table_text);

    const hand = s.hand;
    $("hand-panel").hidden = !hand;
    $("spectator").hidden = !!hand;
    $("spectator").textContent = s.words.spectator;
    $("hand-panel").classList.toggle("your-turn", s.your_turn);
    // The table is drawn above; its words fold away unless asked for.
    const cards = $("cards");
    const moves = $("moves");
    cards.textContent = "";
    moves.textContent = "";
    if (hand) {
      rich($("hand-text"), hand.text);
      $("cards-label").textContent = s.words.your_cards;
      for (const c of hand.cards) {
        const b = document.createElement("button");
        b.className = "card" + (c.red ? " red" : "") + (c.selected ? " selected" : "") +
          (s.your_turn && !c.playable ? " unplayable" : "");
        b.dataset.card = c.code;
        b.setAttribute("aria-pressed", String(c.selected));
        b.setAttribute("aria-label", c.rank + c.suit + (c.mark ? " " + c.mark : ""));
        const r = document.createElement("span"); r.className = "r"; r.textContent = c.rank;
        const su = document.createElement("span"); su.className = "s"; su.textContent = c.suit;
        b.appendChild(r); b.appendChild(su);
        if (c.mark) { const m = document.createElement("span"); m.className = "m"; m.textContent = c.mark; b.appendChild(m); }
        b.addEventListener("click", () => send(c.press));
        cards.appendChild(b);
      }
      for (const m of hand.moves) {
        const b = document.createElement("button");
        b.className = "move" + (m.minor ? " minor" : "");
        b.textContent = m.label;
        b.dataset.press = m.press;
        b.addEventListener("click", () => send(m.press));
        moves.appendChild(b);
      }
    }
    deadlineAt = s.deadline_in_ms === null ? null : Date.now() + s.deadline_in_ms;
    tick();
    if (s.your_turn && !wasTurn && tg && tg.HapticFeedback) {
      tg.HapticFeedback.notificationOccurred("warning");
    }
  }

  // A card as it lies on the table: face up, or its back.
  function faceCard(f) {
    const c = document.createElement("span");
    if (!f) { c.className = "pc back"; c.setAttribute("aria-hidden", "true"); return c; }
    c.className = "pc" + (f.red ? " red" : "");
    c.dataset.card = f.code;
    const r = document.createElement("span"); r.className = "r"; r.textContent = f.rank;
    const su = document.createElement("span"); su.className = "s"; su.textContent = f.suit;
    c.appendChild(r); c.appendChild(su);
    return c;
  }

  // Four seats around the table, the person looking at the bottom (seat 1
  // for a spectator), the next ones clockwise: left, top, right.
  function drawBoard(s) {
    const board = $("board");
    board.setAttribute("aria-label", (s.table_text || []).map((x) => x.t).join(""));
    const bottom = s.you || 1;
    const positions = ["bottom", "left", "top", "right"];
    const plays = new Map(((s.board && s.board.plays) || []).map((p) => [p.seat, p]));
    for (const seat of s.seats) {
      const pos = positions[(seat.seat - bottom + 4) % 4];
      const spot = board.querySelector('.spot[data-pos="' + pos + '"]');
      spot.textContent = "";
      spot.dataset.seat = String(seat.seat);
      const tile = document.createElement("div");
      tile.className = "seat" + (seat.turn ? " turn" : "") + (s.you === seat.seat ? " you" : "");
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = String(seat.seat);
      tile.appendChild(n);
      tile.appendChild(document.createTextNode((seat.turn ? "👉 " : "") + (seat.name || "—")));
      spot.appendChild(tile);
      const play = plays.get(seat.seat);
      const row = document.createElement("div");
      row.className = "played" + (play && play.winning ? " winning" : "");
      if (play) {
        for (const f of play.cards) row.appendChild(faceCard(f));
        for (let i = 0; i < play.down; i++) row.appendChild(faceCard(null));
      }
      spot.appendChild(row);
    }
    const middle = $("middle");
    middle.textContent = "";
    if (s.board && s.board.trump) {
      const t = faceCard(s.board.trump);
      t.classList.add("trump");
      middle.appendChild(t);
    }
    if (s.board && s.board.stock !== null && s.board.stock !== undefined) {
      const st = document.createElement("div");
      st.className = "stock";
      st.appendChild(faceCard(null));
      st.appendChild(document.createTextNode(String(s.board.stock)));
      middle.appendChild(st);
    }
  }

  async function send(press) {
    if (!state) return;
    try {
      const r = await fetch("api/press", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Authorization": "tma " + initData },
        body: JSON.stringify({ table: state.table, press: press, id: newId() }),
      });
      const body = await r.json();
      if (!r.ok) { toast(body.message || r.statusText); return; }
      if (body.message) toast(body.message);
      render(body.state);
    } catch (e) {
      toast(state.words.reconnecting);
    }
  }

  // The first pause before the stream is opened again after the browser
  // gave it up; it doubles up to a maximum while nothing comes back.
  const RETRY_FIRST = 1000;
  const RETRY_MAX = 30000;
  let retryIn = RETRY_FIRST;
  let retryTimer = null;

  function listen() {
    if (source || retryTimer) return;
    const url = "api/events?table=" + encodeURIComponent(table) +
      "&auth=" + encodeURIComponent(initData);
    const es = new EventSource(url);
    source = es;
    es.addEventListener("state", (e) => {
      retryIn = RETRY_FIRST;
      $("status").hidden = true;
      render(JSON.parse(e.data));
    });
    // A dropped stream is reopened by the browser by itself, and its first
    // event is the whole state; but an answer other than 200 (a proxy's
    // 502 while kozyr restarts) makes it give up for good: then the page
    // opens it again itself, after a pause that grows.
    es.onerror = () => {
      if (state) { $("status").textContent = state.words.reconnecting; $("status").hidden = false; }
      if (es.readyState === EventSource.CLOSED && source === es) {
        source = null;
        retryTimer = setTimeout(() => { retryTimer = null; if (!document.hidden) listen(); }, retryIn);
        retryIn = Math.min(retryIn * 2, RETRY_MAX);
      }
    };
  }

  // A page out of sight (left for another, kept in the back/forward cache,
  // or the app minimized) closes its stream, so the person's chat hand is
  // theirs again; shown again, it opens the stream anew.
  function stopListening() {
    if (source) { source.close(); source = null; }
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
  }
  window.addEventListener("pagehide", stopListening);
  window.addEventListener("pageshow", (e) => { if (e.persisted && state) listen(); });
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) stopListening();
    else if (state) listen();
  });

  async function start() {
    try {
      const r = await fetch("api/state?table=" + encodeURIComponent(table), {
        headers: { "Authorization": "tma " + initData },
      });
      const body = await r.json();
      if (!r.ok) { showError(body.message || r.statusText); document.body.dataset.error = body.error || "error"; return; }
      render(body);
      listen();
    } catch (e) {
      showError(String(e));
    }
  }

  start();
})();
