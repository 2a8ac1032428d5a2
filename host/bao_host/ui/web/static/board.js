// The live board: colours each pit from the board's LED frame (the same 96 bytes the LEDs get) and writes
// the counts, the game and the messages, from the server's event stream. On a board being played a click
// on a pit is one activation (POST .../touch). No text is ever inserted as HTML: textContent only.
"use strict";

// The board scales every colour of its grammar (docs/leds.md) by its brightness, a quarter by default. One
// factor for the whole frame brings it back (never pit by pit, which made the start's green and the
// computer's bright green, or the dim white corners and the next pit's white, one colour): a dim light stays
// dim. The same mapping as the terminal UI's (bao_host.ui.lights).
const FULL = 63;  // a full channel as the board sends it at its default brightness (255 * 64 >> 8)
function ledScale(leds) {
  let m = FULL;
  for (let i = 0; i < 192; i += 2) m = Math.max(m, parseInt(leds.slice(i, i + 2), 16));
  return 255 / m;
}
function ledColour(r, g, b, k) {
  if (r === 0 && g === 0 && b === 0) return "#202020";
  return "#" + [r, g, b].map((v) => Math.min(255, Math.round(v * k)).toString(16).padStart(2, "0")).join("");
}

// A light a person could take for another gets a mark as well as its colour (colour alone fails a colour-blind
// player), read from the frame by hue: the bright green of the computer's move or a hint (★; the start's green
// has none), the red-pink of a touch that was not part of a legal move (✕), the dim blue of the four corners
// while no host is connected (⊘), and their dim white while the game is not recorded (!: the same grey on the
// corners at once; a white next pit is one pit), the violet of the side the computer (its level) or the host
// plays, just chosen (◆: no move to make). The corners get their own dim fills, drawn with a dashed
// outline, so that neither is taken for a pit to play.
const CORNERS = [8, 15, 24, 31];
const NOHOST_FILL = "#1b2550";  // the LED is the dimmest light on the board: drawn dim, not as a choice's blue
const UNRECORDED_FILL = "#4a4a4a";  // dim grey, not the next pit's white
// Once the game is over the board shows the winner's pits gold and the loser's dim red (WIN, LOSE): drawn
// dim as the LEDs are, not as the red of a pit to capture.
const LOSER_FILL = "#5a1410";
function unrecordedCorners(leds) {
  const grey = CORNERS.map((p) => leds.slice(6 * p, 6 * p + 6))
    .filter((h) => h !== "000000" && h.slice(0, 2) === h.slice(2, 4) && h.slice(2, 4) === h.slice(4, 6));
  return grey.length >= 3 && grey.every((h) => h === grey[0]);
}
function meaning(pit, r, g, b, over, unrecorded) {
  const m = Math.max(r, g, b);
  if (m === 0) return "";
  const corner = CORNERS.includes(pit);
  if (corner && r === 0 && g === 0) return "nohost";
  if (corner && unrecorded && r === g && g === b) return "unrecorded";
  if (r === 0 && g === m && b > 0 && b * 2 <= m) return "hint";
  if (r === m && g * 8 <= m && b * 6 >= m && b * 2 <= m) return "refused";
  if (b === m && g === 0 && r > 0 && r * 2 < m) return "side";  // violet, not the takasia's purple
  if (over && r === m && g === 0 && b === 0) return "loser";
  return "";
}
const MARKS = { hint: "★", refused: "✕", nohost: "⊘", unrecorded: "!", side: "◆", loser: "", "": "" };
const FILLS = { nohost: NOHOST_FILL, unrecorded: UNRECORDED_FILL, loser: LOSER_FILL };

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

// A move that arrives whole (a real board reports a move when it is played; a page that was away) is sown
// again here drop by drop from the server's frames (the rules core's account, as the replay's), the seeds
// moving while every pit keeps its LED's colour; a move sown under the page's eyes (each drop already
// drawn) is not.
const DROP_MS = Number(new URLSearchParams(window.location.search).get("speed") || 250);
const STILL = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
let drawn = null;  // the counts drawn (34: pits, then the stores)
let newest = null;  // the newest state (drawn once a sowing's animation ends)
let sowing = null;  // the timer of a sowing being animated
let sownPly = -1;  // the last move animated (its ply number and game)

function showDrop(pit) {
  const svg = document.getElementById("board");
  for (const g of svg.querySelectorAll(".pit-group.drop")) g.classList.remove("drop");
  if (pit >= 0) document.getElementById("pit-" + pit).parentNode.classList.add("drop");
  svg.setAttribute("data-drop", String(pit));
}

function drawCounts(counts) {
  drawn = counts.slice();
  drawSeeds(counts);
}

function sow(last) {
  let i = 0;
  const step = () => {
    if (i >= last.frames.length) {
      clearInterval(sowing);
      sowing = null;
      showDrop(-1);
      drawCounts(newest.counts.concat(newest.stores));
      return;
    }
    const f = last.frames[i++];
    showDrop(f.pit);
    drawCounts(f.counts);
  };
  sowing = setInterval(step, DROP_MS);
  step();
}

let rulesetChosen = false;  // a person chose the next new game's ruleset: the page no longer follows the board's

function applyState(s) {
  const svg = document.getElementById("board");
  const over = / wins$/.test(s.turn);
  const k = ledScale(s.leds), unrecorded = unrecordedCorners(s.leds);
  for (let pit = 0; pit < 32; pit++) {
    const hex = s.leds.slice(6 * pit, 6 * pit + 6);
    const r = parseInt(hex.slice(0, 2), 16), g = parseInt(hex.slice(2, 4), 16), b = parseInt(hex.slice(4, 6), 16);
    const what = meaning(pit, r, g, b, over, unrecorded);
    const fill = FILLS[what] || ledColour(r, g, b, k);
    const shape = document.getElementById("pit-" + pit);
    shape.setAttribute("fill", fill);
    shape.setAttribute("data-rgb", hex);
    shape.parentNode.setAttribute("data-meaning", what);
    const ink = inkOn(fill);
    for (const id of ["count-", "name-", "mark-"]) document.getElementById(id + pit).setAttribute("fill", ink);
    setText("mark-" + pit, MARKS[what]);
  }
  newest = s;
  const counts = s.counts.concat(s.stores);
  const last = s.last;
  const key = last ? s.game + ":" + last.n : "";
  if (last && key !== sownPly && !STILL && sowing === null && drawn !== null
      && last.n === s.plies.length && drawn.every((v, i) => v === last.before[i])) {
    sownPly = key;
    sow(last);
  } else if (sowing === null) {
    if (last) sownPly = key;
    drawCounts(counts);
  }
  setText("turn", s.turn);
  setText("guide", s.guide || s.turn);
  setText("who", s.players || "");
  // the computer's choice shows the board's (it keeps it across restarts), unless a person is choosing
  const choice = document.getElementById("computer");
  if (choice && document.activeElement !== choice && choice.value !== String(s.level || 0)) {
    choice.value = String(s.level || 0);
  }
  // the ruleset choice shows the board's (a lesson's laid out, a game resumed), unless a person chose another
  // for the next new game
  const rules = document.getElementById("ruleset");
  if (rules && s.ruleset && !rulesetChosen && document.activeElement !== rules && rules.value !== s.ruleset) {
    rules.value = s.ruleset;
  }
  setText("board-id", s.board_id || "?");
  setText("connection", s.connection);
  setText("game", s.game === null ? "-" : String(s.game));
  fillList("messages", s.messages);
  showLesson(s.lesson);
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

// A lesson played on this board (bao_host.lessons): its title, words and rules, and the task at hand.
function showLesson(lesson) {
  const panel = document.getElementById("lesson");
  if (!panel) return;
  panel.hidden = !lesson;
  if (!lesson) return;
  setText("lesson-title", "Lesson: " + lesson.title);
  setText("lesson-text", lesson.text);
  fillList("lesson-rules", lesson.rules.map((r) => r[0] + ": " + r[1]));
  setText("lesson-task", lesson.done
    ? "Lesson done (" + lesson.wrong + " wrong answer" + (lesson.wrong === 1 ? "" : "s") + ")."
    : "Task " + lesson.task + " of " + lesson.of + ": " + lesson.prompt);
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
  document.getElementById("new-game").addEventListener("click", () => {
    rulesetChosen = false;
    post("new", { ruleset: document.getElementById("ruleset").value });
  });
  document.getElementById("ruleset").addEventListener("change", () => { rulesetChosen = true; });
  document.getElementById("undo").addEventListener("click", () => post("undo", {}));
  document.getElementById("mode").addEventListener("change",
    (e) => post("mode", { mode: e.target.value }));
  document.getElementById("computer").addEventListener("change",
    (e) => post("computer", { level: Number(e.target.value) }));
  document.getElementById("hint").addEventListener("click", () => post("hint", {}));
  const startLesson = document.getElementById("start-lesson");
  if (startLesson) {
    startLesson.addEventListener("click",
      () => post("lesson", { lesson: document.getElementById("lesson-name").value }));
  }
}
