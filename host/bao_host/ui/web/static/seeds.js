// The seeds as a Bao board shows them, for the live board (board.js) and the replay (replay.js): each pit's
// seeds heaped in its middle (its count kept in small type under them), each store's as a heap beside its
// words. Only counts reach this code; it builds SVG elements, never markup from text.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const SEED_R = 4.2;
const SEED_SHADES = ["#e2d3ad", "#cbb58a", "#b99f72"];  // (komwe are grey-brown: three shades, a heap)
const PIT_SEEDS_DRAWN = 30;  // more than this in one pit: the drawing stays full, the count says how many

function seedAt(x, y, k) {
  const c = document.createElementNS(SVGNS, "circle");
  c.setAttribute("cx", x.toFixed(1));
  c.setAttribute("cy", y.toFixed(1));
  c.setAttribute("r", String(SEED_R));
  c.setAttribute("fill", SEED_SHADES[k % SEED_SHADES.length]);
  c.setAttribute("class", "seed");
  return c;
}

// The k-th seed of a pit: a sunflower spiral, so a few seeds sit in the middle and more spread out as a heap.
function pitSpot(k) {
  const r = 3.6 * Math.sqrt(k + 0.5), a = k * 2.39996;
  return [r * Math.cos(a), r * Math.sin(a)];
}

function drawPitSeeds(pit, n) {
  const g = document.getElementById("seeds-" + pit);
  if (!g) return;
  const want = Math.min(n, PIT_SEEDS_DRAWN);
  if (g.childElementCount === want) return;
  const group = g.parentNode;
  const x = Number(group.dataset.x), y = Number(group.dataset.y);
  while (g.childElementCount > want) g.lastChild.remove();
  for (let k = g.childElementCount; k < want; k++) {
    const [dx, dy] = pitSpot(k);
    g.appendChild(seedAt(x + dx, y + dy, k));
  }
}

// A store's heap: rows from the bottom, each two seeds shorter than the one under it, as seeds poured in
// one place lie.
function drawHeap(id, n) {
  const g = document.getElementById(id);
  if (!g || g.childElementCount === n) return;
  g.replaceChildren();
  let width = 1;
  const holds = (w) => { let s = 0; for (let r = w; r > 0; r -= 2) s += r; return s; };
  while (holds(width) < n) width++;
  const x0 = Number(g.dataset.x), y0 = Number(g.dataset.y);
  let k = 0;
  for (let row = 0, w = width; k < n && w > 0; row++, w -= 2) {
    for (let i = 0; i < w && k < n; i++, k++) {
      g.appendChild(seedAt(x0 + 110 + (i - (w - 1) / 2) * 7, y0 - SEED_R - row * 5.5, k));
    }
  }
}

function inkOn(fill) {
  const r = parseInt(fill.slice(1, 3), 16), g = parseInt(fill.slice(3, 5), 16), b = parseInt(fill.slice(5, 7), 16);
  return r * 299 + g * 587 + b * 114 > 128000 ? "#000000" : "#ffffff";
}

// counts: the 32 pits, then South's and North's store (the rules core's order)
function drawSeeds(counts) {
  for (let pit = 0; pit < 32; pit++) {
    drawPitSeeds(pit, counts[pit]);
    const c = document.getElementById("count-" + pit);
    if (c.textContent !== String(counts[pit])) c.textContent = String(counts[pit]);
  }
  document.getElementById("store-s").textContent = "South's store: " + counts[32];
  document.getElementById("store-n").textContent = "North's store: " + counts[33];
  drawHeap("heap-s", counts[32]);
  drawHeap("heap-n", counts[33]);
}
