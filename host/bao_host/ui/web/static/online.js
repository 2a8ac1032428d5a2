// An online game in the browser (docs/online.md, "In the browser"): the game's event stream of the client
// protocol, each move sown drop by drop from the server's account of it (the rules core's, as the replay's),
// and, for a browser that holds a seat (its token in localStorage, put there by online_lobby.js), its moves:
// the legal start pits lit green, a click plays the pit's move (or offers the pit's moves to choose from),
// POSTed with its ply. No text is ever inserted as HTML: textContent only.
"use strict";

const root = document.getElementById("online");
const GAME = root.dataset.game;
const SPECTATOR = root.dataset.spectator === "yes";
const held = SPECTATOR ? null : JSON.parse(localStorage.getItem("bao-seat-" + GAME) || "null");
const SEAT = held ? held.seat : null;
const DROP_MS = Number(new URLSearchParams(window.location.search).get("speed") || 250);
const STILL = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const CATCH_UP = 4;  // a page further behind than this (it was away) draws the position at once
const SIDE = { S: "South", N: "North" };
const OFF = "#3a2a1a", START = "#00a000", DROP = "#ffffff";

let shown = Number(root.dataset.plies);  // the moves drawn
let known = shown;  // the moves the page knows of
const moves = [];
let game = null;  // the game's last state event
let view = null;  // the drawn position (its legal moves when it is the last)
let busy = false;
let stale = false;  // the drawn position's view is to be asked again (the game started or ended)
let posting = false;
let epoch = 0;  // raised by a takeback of the move being fetched or sown: it is dropped, not finished
let drawing = -1;  // the moves the position being fetched or sown follows
let stopSowing = null;  // ends the sowing being drawn at once

function setText(id, text) {
  const el = document.getElementById(id);
  if (el && el.textContent !== text) el.textContent = text;
}

function say(text) {
  const ul = document.getElementById("messages");
  const li = document.createElement("li");
  li.textContent = text;
  ul.prepend(li);
  while (ul.childElementCount > 8) ul.lastChild.remove();
}

function paint(lit, drop) {
  for (let pit = 0; pit < 32; pit++) {
    const fill = pit === drop ? DROP : lit.has(pit) ? START : OFF;
    const shape = document.getElementById("pit-" + pit);
    shape.setAttribute("fill", fill);
    shape.parentNode.classList.toggle("drop", pit === drop);
    shape.parentNode.setAttribute("data-start", lit.has(pit) ? "yes" : "no");
    const ink = inkOn(fill);
    for (const id of ["count-", "name-", "mark-"]) document.getElementById(id + pit).setAttribute("fill", ink);
  }
}

function myTurn() {
  return SEAT !== null && !posting && view !== null && view.ply === shown && shown === known && game !== null
    && game.status === "playing" && view.to_move === SEAT && view.legal.length > 0;
}

function drawView() {
  const board = document.getElementById("board");
  drawSeeds(view.counts);
  const lit = new Set(myTurn() ? view.legal.map((l) => l.pit) : []);
  paint(lit, -1);
  board.setAttribute("data-ply", String(view.ply));
  board.setAttribute("data-frame", "end");
  board.setAttribute("data-drop", "-1");
  let turn = view.turn;
  if (game !== null && view.ply === game.plies) turn = turnOf(game, view);
  setText("turn", turn);
  setText("guide", myTurn() ? "Your move (" + SIDE[SEAT] + "): click a green pit." : turn);
  const help = document.getElementById("play-help");
  if (help) help.hidden = !myTurn();
  document.getElementById("choices").replaceChildren();
  board.classList.toggle("clickable", myTurn());
}

function turnOf(g, v) {
  if (g.status === "waiting") return "waiting for the other player to join";
  if (g.status === "over" || g.status === "aborted") return (g.result || "no result") + (g.reason ? " (" + g.reason + ")" : "");
  return v.turn;
}

function frame(ply, i, f) {
  const board = document.getElementById("board");
  drawSeeds(f.counts);
  paint(new Set(), f.pit);
  board.setAttribute("data-ply", String(ply));
  board.setAttribute("data-frame", String(i));
  board.setAttribute("data-drop", String(f.pit));
  setText("guide", SIDE[view.side] + " " + view.move + ": " + f.text);
  setText("turn", SIDE[view.side] + " plays " + view.move);
}

function sow(done) {
  let i = 0;
  const stop = () => { clearInterval(timer); stopSowing = null; done(); };
  const step = () => {
    if (i >= view.frames.length) { stop(); return; }
    frame(view.ply, i, view.frames[i]);
    i++;
  };
  const timer = setInterval(step, DROP_MS);
  stopSowing = stop;
  step();
}

async function fetchView(n) {
  const r = await fetch("/online/game/" + encodeURIComponent(GAME) + "/ply/" + n, { cache: "no-store" });
  if (!r.ok) throw new Error("the server answered " + r.status);
  return r.json();
}

// The next thing to draw: the next move sown drop by drop, or (far behind, or no motion wanted) the
// newest position at once.
function pump() {
  if (busy) return;
  if (shown >= known && !stale) return;
  busy = true;
  stale = false;
  const target = shown >= known ? shown : (known - shown > CATCH_UP || STILL) ? known : shown + 1;
  const animate = target === shown + 1 && !STILL;
  const mine = epoch;
  drawing = target;
  const dropped = () => { busy = false; pump(); };  // (a takeback came meanwhile: draw what is left)
  fetchView(target).then((v) => {
    if (mine !== epoch) { dropped(); return; }
    view = v;
    const finish = () => {
      if (mine !== epoch) { dropped(); return; }
      shown = target;
      if (shown > known) { shown = known; stale = true; }  // (a takeback came meanwhile)
      drawView();
      busy = false;
      pump();
    };
    if (animate) sow(finish); else finish();
  }).catch((e) => {
    say("! " + e.message);
    busy = false;
    setTimeout(pump, 1000);
  });
}

function listMoves() {
  const items = [];
  for (let i = 0; i < moves.length; i += 2) items.push(moves.slice(i, i + 2).join(" "));
  const ol = document.getElementById("moves");
  ol.replaceChildren(...items.map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
}

async function seatRequest(what, body) {
  const r = await fetch("/online/v1/games/" + encodeURIComponent(GAME) + "/" + what, {
    method: "POST", headers: { "Content-Type": "application/json", "Authorization": "Bearer " + held.token },
    body: JSON.stringify(body) });
  let answer = {};
  try { answer = await r.json(); } catch (e) { answer = { error: "the server answered " + r.status }; }
  if (!r.ok) throw new Error(answer.error || ("the server answered " + r.status));
  return answer;
}

function play(move) {
  posting = true;
  drawView();
  setText("guide", "sending " + move + "…");
  seatRequest("move", { ply: shown + 1, move }).catch((e) => { say("! " + e.message); })
    .finally(() => { posting = false; if (!busy && shown === known) drawView(); });
}

function choose(pit) {
  if (!myTurn()) return;
  const here = view.legal.filter((l) => l.pit === pit);
  if (here.length === 0) return;
  if (here.length === 1) { play(here[0].move); return; }
  const box = document.getElementById("choices");
  box.replaceChildren(...here.map((l) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "choice";
    b.setAttribute("data-move", l.move);
    b.textContent = l.move + ": " + l.words;
    b.addEventListener("click", () => play(l.move));
    return b;
  }));
  setText("guide", "Choose the move from this pit below the board.");
}

function ended(s) { return s.status === "over" || s.status === "aborted"; }

// What a seat's holder may do now: resign while playing, abort before each side has moved, a rematch after.
function showControls() {
  const controls = document.getElementById("seat-controls");
  if (!controls || !held || game === null) return;
  controls.hidden = false;
  document.getElementById("resign").hidden = game.status !== "playing";
  document.getElementById("abort").hidden = ended(game) || known >= 2;
  document.getElementById("rematch").hidden = !ended(game);
  const asked = game.takeback;
  const askedOfMe = asked !== null && asked !== undefined && asked.by !== SEAT && game.status === "playing";
  document.getElementById("takeback").hidden = game.status !== "playing" || myLastMove() < 0 || askedOfMe;
  document.getElementById("accept-takeback").hidden = !askedOfMe;
  document.getElementById("decline-takeback").hidden = !askedOfMe;
}

// The number of moves a takeback of this seat's last move goes back to (-1: none of the last two is mine).
function myLastMove() {
  for (let n = known - 1; n >= Math.max(0, known - 2); n--) {
    if ((n % 2 === 0) === (SEAT === first())) return n;
  }
  return -1;
}

function first() { return game && game.start && game.start.to_move === "N" ? "N" : "S"; }

// Fischer clocks, kept by the server (docs/online.md, "Clocks"): each side's time left as the server last
// said it (a state, or a move's event), the running side's counted down here until the server says more.
let clock = null;  // { S: ms, N: ms, running: "S" | "N" | null, at: when it was said (performance.now()) }

function clockText(ms) {
  const sec = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(sec / 3600), m = Math.floor(sec / 60) % 60, s = sec % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(s).padStart(2, "0");
}

function setClock(c) {
  clock = c ? { S: c.S, N: c.N, running: c.running, at: performance.now() } : null;
  showClocks();
}

function showClocks() {
  const box = document.getElementById("clocks");
  box.hidden = clock === null;
  if (clock === null) return;
  const playing = game !== null && game.status === "playing";
  for (const side of ["S", "N"]) {
    let ms = clock[side];
    if (playing && clock.running === side) ms -= performance.now() - clock.at;
    setText("clock-" + side, SIDE[side] + " " + clockText(ms));
    document.getElementById("clock-" + side).classList.toggle("running", playing && clock.running === side);
  }
}
setInterval(() => { if (clock !== null && clock.running) showClocks(); }, 250);

function onState(s) {
  const before = game;
  game = s;
  setClock(s.clock);
  setText("name-s", s.seats.S || "?");
  setText("name-n", s.seats.N || "?");
  if (before !== null && before.status !== s.status) {
    if (s.status === "playing") say("both players are here: the game starts");
    else if (s.status === "over" || s.status === "aborted") say("the game is over: " + turnOf(s, view || {}));
  }
  if (before === null || before.status !== s.status) stale = true;
  if (s.plies < known) {  // a takeback accepted: the moves after it are gone, the position drawn at once
    say("takeback: the game goes back to " + s.plies + " moves");
    const cut = busy && drawing > s.plies;  // (the move being drawn is gone: stop drawing it)
    moves.length = s.plies;
    known = s.plies;
    shown = Math.min(shown, s.plies);
    stale = true;
    listMoves();
    if (cut) {
      epoch++;
      if (stopSowing) stopSowing();
    }
  }
  const asked = s.takeback;
  if (asked && !(before && before.takeback)) say(SIDE[asked.by] + " asks to take back to " + asked.plies + " moves");
  const was = before && before.takeback;
  if (was && !asked && s.plies === before.plies && s.status === "playing") {  // (no move made: an answer, no)
    say(SIDE[was.by === "S" ? "N" : "S"] + " declined the takeback");
  }
  known = Math.max(known, s.plies);
  const invitation = document.getElementById("invitation");
  if (invitation && held && held.invite) {
    invitation.hidden = s.status !== "waiting";
    const link = window.location.origin + "/online/join#" + held.invite;
    const a = document.getElementById("invite-link");
    a.textContent = link;
    a.href = link;
    setText("invite-code", held.invite);
  }
  if (ended(s) && s.rematch && !(before && before.rematch)) say("a rematch is asked for: the sides swapped");
  showControls();
  pump();
}

const who = document.getElementById("who");
if (!SPECTATOR) who.textContent = SEAT ? "you play " + SIDE[SEAT] : "watching (this browser holds no seat in this game)";

// (from the first move: the list shows them all; a reconnect resumes after the last one, Last-Event-ID)
const events = new EventSource("/online/v1/games/" + encodeURIComponent(GAME) + "/events?after=0");
events.onopen = () => setText("connection", "connected");
events.onerror = () => setText("connection", "reconnecting (nothing is lost)");
events.addEventListener("state", (e) => onState(JSON.parse(e.data)));
events.addEventListener("move", (e) => {
  const m = JSON.parse(e.data);
  moves[m.ply - 1] = m.move;
  if (m.clock) setClock(m.clock);  // (the clocks as this move was made: the other side's now runs)
  known = Math.max(known, m.ply);
  if (game !== null) game.plies = Math.max(game.plies, m.ply);
  listMoves();
  showControls();
  pump();
});

for (const g of document.querySelectorAll(".pit-group")) g.addEventListener("click", () => choose(Number(g.dataset.pit)));
if (held) {
  const act = (what, after) => () => seatRequest(what, {}).then(after).catch((e) => say("! " + e.message));
  document.getElementById("resign").addEventListener("click", act("resign", () => {}));
  document.getElementById("abort").addEventListener("click", act("abort", () => {}));
  document.getElementById("takeback").addEventListener("click", () => seatRequest("takeback", { plies: myLastMove() })
    .then(() => say("takeback asked for")).catch((e) => say("! " + e.message)));
  document.getElementById("accept-takeback").addEventListener("click",
    () => seatRequest("takeback/accept", { plies: game.takeback.plies }).catch((e) => say("! " + e.message)));
  document.getElementById("decline-takeback").addEventListener("click",
    () => seatRequest("takeback", { plies: null }).catch((e) => say("! " + e.message)));
  document.getElementById("rematch").addEventListener("click", act("rematch", (a) => {
    localStorage.setItem("bao-seat-" + a.game, JSON.stringify({ seat: a.seat, token: a.token, invite: "" }));
    window.location.assign("/online/game/" + encodeURIComponent(a.game));
  }));
}
stale = true;  // the position the page was made with: its view (the legal moves) asked for
pump();
