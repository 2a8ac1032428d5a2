// A game's replay: the position before each move, then the move drop by drop (the frames the server
// computed from the rules core's account of the move), with the rule's sentence for each step.
"use strict";

const data = JSON.parse(document.getElementById("replay-data").textContent);
// Every position shown, in order: the start, then each frame of each ply. marks[i] = [ply, frame] or null.
const shown = [{ counts: data.start, pit: -1, text: "the start position", ply: 0 }];
data.plies.forEach((p) => p.frames.forEach((f, i) =>
  shown.push({ counts: f.counts, pit: f.pit,
               text: Math.floor((p.n + 1) / 2) + (p.side === "South" ? ". " : "… ") + p.side + " " + p.donkers + " (" + p.kiba + "): " + f.text,
               ply: p.n, last: i === p.frames.length - 1 })));
let at = 0;
let timer = null;
const DROP_MS = Number(new URLSearchParams(window.location.search).get("speed") || 250);

function draw() {
  const s = shown[at];
  for (let pit = 0; pit < 32; pit++) {
    const c = document.getElementById("pit-" + pit);
    const on = pit === s.pit;
    c.setAttribute("fill", on ? "#ffffff" : "#3a2a1a");
    c.setAttribute("data-lit", on ? "yes" : "no");
    for (const id of ["count-", "name-"]) document.getElementById(id + pit).setAttribute("fill", on ? "#000000" : "#ffffff");
  }
  drawSeeds(s.counts);
  document.getElementById("step").textContent = s.text;
  for (const row of document.querySelectorAll("#transcript tr[data-ply]")) {
    row.classList.toggle("current", Number(row.dataset.ply) === s.ply);
  }
  document.getElementById("board").setAttribute("data-at", String(at));
}

function moveStart(i, dir) {  // the index of the last frame of the ply before/after
  let j = i + dir;
  while (j > 0 && j < shown.length - 1 && !shown[j].last) j += dir;
  return Math.max(0, Math.min(shown.length - 1, j));
}

function go(i) { at = Math.max(0, Math.min(shown.length - 1, i)); draw(); }
function stop() { if (timer !== null) { clearInterval(timer); timer = null; document.getElementById("play").textContent = "play ▶▶"; } }

document.getElementById("start").addEventListener("click", () => { stop(); go(0); });
document.getElementById("prev-drop").addEventListener("click", () => { stop(); go(at - 1); });
document.getElementById("next-drop").addEventListener("click", () => { stop(); go(at + 1); });
document.getElementById("prev-move").addEventListener("click", () => { stop(); go(moveStart(at, -1)); });
document.getElementById("next-move").addEventListener("click", () => { stop(); go(moveStart(at, +1)); });
document.getElementById("play").addEventListener("click", () => {
  if (timer !== null) { stop(); return; }
  document.getElementById("play").textContent = "pause ❚❚";
  timer = setInterval(() => { if (at >= shown.length - 1) stop(); else go(at + 1); }, DROP_MS);
});
for (const row of document.querySelectorAll("#transcript tr[data-ply]")) {
  row.addEventListener("click", () => {
    stop();
    const n = Number(row.dataset.ply);
    let j = shown.findIndex((s) => s.ply === n && s.last);
    go(j < 0 ? 0 : j);
  });
}
draw();
