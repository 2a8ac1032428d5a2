// A puzzle page: the seeds drawn from the position's counts (seeds.js), the typed move sent to the server,
// its answer said in words. Only text from the server's JSON is shown, as text.
"use strict";

(function () {
  const counts = JSON.parse(document.getElementById("counts").textContent);
  drawSeeds(counts);
  const box = document.getElementById("puzzle");
  const form = document.getElementById("answer-form");
  const result = document.getElementById("result");
  const token = new URLSearchParams(location.search).get("token") || "";
  const found = [];  // a line's moves found so far (the server checks them again with each answer)

  function say(lines, cls) {
    result.replaceChildren();
    result.className = cls;
    for (const line of lines) {
      const p = document.createElement("p");
      p.textContent = line;
      result.appendChild(p);
    }
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const move = document.getElementById("move").value.trim();
    const solver = document.getElementById("solver-name").value.trim() || "you";
    if (!move) return;
    const headers = {"Content-Type": "application/json"};
    if (token) headers["X-Bao-Token"] = token;
    const r = await fetch("/puzzles/" + encodeURIComponent(box.dataset.id) + "/answer",
                          {method: "POST", headers, body: JSON.stringify({move, solver, before: found})});
    const data = await r.json();
    if (!r.ok) { say([data.error || "the server refused the answer"], "refused"); return; }
    if (!data.final) {  // a line: the reply is played on the board, the next move is to find
      found.push(data.move);
      drawSeeds(data.counts);
      document.getElementById("guide").textContent = data.guide;
      document.getElementById("move").value = "";
      say(data.lines, "going");
      return;
    }
    say(data.lines.concat(["The line: " + data.line.join(" ") + " · themes: " + data.themes.join(", ")]),
        data.correct ? "solved" : "failed");
    document.getElementById("submit").disabled = true;
    document.getElementById("ratings").textContent =  // (the side panel said the ratings before the answer)
      solver + ": rating " + data.rating_shown + " · this puzzle: " + data.puzzle_rating;
    const next = document.getElementById("next");
    if (data.next) {
      next.href = "/puzzles/" + encodeURIComponent(data.next) + "?solver=" + encodeURIComponent(solver) +
        (token ? "&token=" + encodeURIComponent(token) : "");
      next.hidden = false;
    }
  });
})();
