// Making and joining an online game (docs/online.md): the page speaks the client protocol itself. The seat
// token the server answers stays in this browser (localStorage, under the game's id) and goes nowhere but
// in the Authorization header of the seat's own requests; the invitation travels in a link's fragment
// (#CODE), which a browser never sends to a server.
"use strict";

function showError(text) { document.getElementById("error").textContent = text; }

async function ask(path, body) {
  const r = await fetch("/online/v1" + path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  let answer = {};
  try { answer = await r.json(); } catch (e) { answer = { error: "the server answered " + r.status }; }
  if (!r.ok) throw new Error(answer.error || ("the server answered " + r.status));
  return answer;
}

function keepSeat(answer) {
  localStorage.setItem("bao-seat-" + answer.game, JSON.stringify(
    { seat: answer.seat, token: answer.token, invite: answer.invite || "" }));
  window.location.assign("/online/game/" + encodeURIComponent(answer.game));
}

function join(code) {
  const name = document.getElementById("name").value.trim();
  ask("/join", { invite: code.trim(), name }).then(keepSeat).catch((e) => showError(e.message));
}

const made = document.getElementById("new-online");
if (made) {
  made.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = { ruleset: document.getElementById("ruleset").value, side: document.getElementById("side").value,
                   name: document.getElementById("name").value.trim() };
    const clock = document.getElementById("clock").value;  // "base+increment" in seconds, or "" for none
    if (clock) body.clock = { base: Number(clock.split("+")[0]), increment: Number(clock.split("+")[1]) };
    ask("/games", body)
      .then(keepSeat).catch((err) => showError(err.message));
  });
  document.getElementById("join-code").addEventListener("submit", (e) => {
    e.preventDefault();
    join(document.getElementById("code").value);
  });
}

const joining = document.getElementById("join");
if (joining) {
  document.getElementById("code").value = decodeURIComponent(window.location.hash.slice(1));
  joining.addEventListener("submit", (e) => { e.preventDefault(); join(document.getElementById("code").value); });
}
