"""Online play (issue #27, docs/online.md): two simulated boards, each with its own host client and local
library, play through `bao serve`; the server referees and keeps the game."""

from __future__ import annotations

from pathlib import Path

import onlinerig
import simrig
from bao_host.record.store import Store
from webrig import serving


def _online_game(root: Path, game: str) -> tuple[list[str], dict[str, str]]:
    with Store(root, readonly=True) as st:
        found = [g for g in st.games() if st.game(g.id).headers().get("online game") == game]
        assert len(found) == 1, f"{root}: {len(found)} games of online game {game}"
        g = st.game(found[0].id)
        return g.plies, g.headers()


def test_two_boards_play_the_1994_game_through_the_server(tmp_path: Path) -> None:
    g = simrig.game_1994()
    with serving(tmp_path / "server", sims=0) as web:
        a, b = onlinerig.pair(web.url, tmp_path)
        try:
            onlinerig.play_remote(g, [a, b], web)
            a.bridge.api.resign(a.bridge.seat)  # "A resigns" (the transcript's last words)
            onlinerig.wait_end([a, b])
            game = a.bridge.seat.game
            state = web.server.online.games[game].state()
        except AssertionError:
            for pl in (a, b):
                print(pl.name, pl.runner.phase, pl.runner.position.to_move, pl.session.logger.view.plies[-3:],
                      onlinerig.server_moves(web, pl.bridge.seat.game)[-3:], *pl.said[-8:], sep="\n  ")
                print([m.text for m in pl.session.logger.messages][-8:])
            raise
        finally:
            a.close()
            b.close()
    assert (state["status"], state["result"], state["reason"], state["plies"]) == (
        "over", "North wins", "South resigned", len(g.plies))
    server_plies, server_headers = _online_game(tmp_path / "server", game)
    alice_plies, alice_headers = _online_game(tmp_path / "alice" / "library", game)
    bob_plies, bob_headers = _online_game(tmp_path / "bob" / "library", game)
    assert server_plies == alice_plies == bob_plies == g.plies
    for h in (server_headers, alice_headers, bob_headers):
        assert (h["South"], h["North"], h["result"]) == ("Alice", "Bob", "North wins")
