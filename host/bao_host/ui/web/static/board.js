// The live board: colours each pit from the board's LED frame (the same 96 bytes the LEDs get) and writes
// the counts, the game and the messages, from the server's event stream. On a board being played a click
// on a pit is one activation (POST .../touch). No text is ever inserted as HTML: textContent only.
"use strict";

// The colour a pit is drawn in for an LED value: dark LEDs stay visibly dark; dim colours are brought up
// to full brightness keeping their hue (the same mapping as the terminal UI's).
function ledColour(r, g, b) {
  if (r === 0 && g === 0 && b === 0) return "#202020";
  const m = Math.max(r, g, b);
  const k = m < 96 ? 255 / m : 1.0;
  const c = [r, g, b].map((v) => Math.min(255, Math.floor(v * k)));
  return "#" + c.map((v) => v.toString(16).padStart(2, "0")).join("");
}

function inkOn(fill) {
  const r = parseInt(fill.slice(1, 3), 16), g = parseInt(fill.slice(3, 5), 16), b = parseInt(fill.slice(5, 7), 16);
  return r * 299 + g * 587 + b * 114 > 128000 ? "#000000" : "#ffffff";
}

function setText(id, text) {
  const el = document.getElementById(id);
  if (el && el.textContent !== text) el.textContent = text;
}

function fillList(id, items) {
  const el = document.getElementById(id);
  if (!el) return;
  el.replaceChildren(...items.map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
}

window.baoLatencies = [];  // seconds from the logger storing an event to this page drawing it (make bench)

function applyState(s) {
  const svg = document.getElementById("board");
  for (let pit = 0; pit < 32; pit++) {
    const hex = s.leds.slice(6 * pit, 6 * pit + 6);
    const r = parseInt(hex.slice(0, 2), 16), g = parseInt(hex.slice(2, 4), 16), b = parseInt(hex.slice(4, 6), 16);
    const fill = ledColour(r, g, b);
    const circle = document.getElementById("pit-" + pit);
    circle.setAttribute("fill", fill);
    circle.setAttribute("data-rgb", hex);
    const ink = inkOn(fill);
    for (const id of ["count-", "name-"]) document.getElementById(id + pit).setAttribute("fill", ink);
    setText("count-" + pit, String(s.counts[pit]));
  }
  setText("store-s", "South's store: " + s.stores[0]);
  setText("store-n", "North's store: " + s.stores[1]);
  setText("turn", s.turn);
  setText("guide", s.guide || s.turn);
  setText("who", s.players || "");
  setText("south", s.south || "?");
  setText("north", s.north || "?");
  setText("board-id", s.board_id || "?");
  setText("connection", s.connection);
  setText("game", s.game === null ? "-" : String(s.game));
  fillList("messages", s.messages);
  const moves = [];
  for (let i = 0; i < s.plies.length; i += 2) moves.push(s.plies.slice(i, i + 2).join(" "));
  fillList("moves", moves);
  if (s.stored && s.stored_seq !== Number(svg.getAttribute("data-seq") || 0)) {
    window.baoLatencies.push({ seq: s.stored_seq, seconds: Date.now() / 1000 - s.stored });
    if (window.baoLatencies.length > 1000) window.baoLatencies.shift();  // (a long club evening)
    svg.setAttribute("data-seq", String(s.stored_seq));
  }
  svg.setAttribute("data-version", String(s.version));
}

const live = document.getElementById("live");
const name = live.dataset.board;
const token = new URLSearchParams(window.location.search).get("token") || "";

// One request at a time, in the order of the clicks: two touches must reach the board in the order made.
let queue = Promise.resolve();
function post(what, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Bao-Token"] = token;
  queue = queue.then(() => fetch("/board/" + encodeURIComponent(name) + "/" + what,
                                 { method: "POST", headers, body: JSON.stringify(body) }))
    .then((r) => r.ok ? null : r.json().then((e) => { fillList("messages", ["! " + e.error]); }))
    .catch((e) => { fillList("messages", ["! the server did not answer: " + e]); });
  return queue;
}

const events = new EventSource("/board/" + encodeURIComponent(name) + "/events");
events.onmessage = (e) => applyState(JSON.parse(e.data));

if (live.dataset.playing === "yes") {
  for (const g of document.querySelectorAll(".pit-group")) {
    g.addEventListener("click", () => post("touch", { pit: Number(g.dataset.pit) }));
  }
  document.getElementById("new-game").addEventListener("click",
    () => post("new", { ruleset: document.getElementById("ruleset").value }));
  document.getElementById("undo").addEventListener("click", () => post("undo", {}));
  document.getElementById("mode").addEventListener("change",
    (e) => post("mode", { mode: e.target.value }));
  document.getElementById("computer").addEventListener("change",
    (e) => post("computer", { level: Number(e.target.value) }));
  document.getElementById("hint").addEventListener("click", () => post("hint", {}));
}
