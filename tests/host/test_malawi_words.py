"""The guidance words and the logger's messages cite the rules of the game on the board (issue #28): in a
Malawi game a capture, a refused touch and the game's end cite the Malawi rulings (M2, which takes over the
Zanzibar mtaji stage's sowing, capture and relay: "M2 (1.4)"; M23 for the end), not the Zanzibar sections
alone. The words come from what the board says on its serial line, as every UI's do."""

from __future__ import annotations

from pathlib import Path

from bao import core
from bao_host.boards.sim import CPythonBoard, PtyLink, SimRunner, touches
from bao_host.record.logger import Logger
from bao_host.record.session import LinkSession
from bao_host.record.store import Store
from bao_host.ui.steps import step_guidance
from bao_testkit.simrig import wait_for


def _capture(p: core.Position) -> int:
    """A legal capture move of p (the first the rules list)."""
    return next(m for m, c in core.legal_moves(p) if core.format_move(m, p.to_move)[-1] != "*")


def test_a_malawi_game_s_words_cite_the_malawi_rules(tmp_path: Path) -> None:
    (tmp_path / "flash").mkdir()
    link = PtyLink()
    runner = SimRunner(CPythonBoard(str(tmp_path / "flash"), board_id="malawi-words"), link).start()
    store = Store(tmp_path / "data")
    logger = Logger(store)
    session = LinkSession(link.path, logger)
    view = logger.view
    try:
        wait_for(lambda: view.state is not None, 120, lambda: session.poll(0.005), "the board's first STATE")
        reply = session.new_game(core.MALAWI)
        assert reply is not None and reply.ok, reply
        p = core.initial(core.MALAWI)
        wait_for(lambda: view.state.position(p.rules).d == p.d, 120, lambda: session.poll(0.005), "NEW")
        said = []
        for pit, _ in touches(p, _capture(p)):
            before = view.state
            runner.tap(pit).wait(60)
            wait_for(lambda b=before: view.state is not b, 120, lambda: session.poll(0.005), "the next STATE")
            said.append(step_guidance(view.state, p.rules))
            if "capture:" in said[-1]:
                break
        assert "M2 (1.4) capture: lift the seeds of" in said[-1], said
        wrong = core.pit_index("B1")  # (the mover's back row: no step of a capture goes there)
        before = view.state
        runner.tap(wrong).wait(60)
        wait_for(lambda: view.state is not before, 120, lambda: session.poll(0.005), "the refusal's STATE")
        words = step_guidance(view.state, p.rules)
        assert words.startswith("B1 refused (pink ✕), M2 (1."), words
        assert " 1.4 capture" not in words and "; M2 (1.4) capture: lift the seeds of" in words, words
        # the logger's message list (`bao log`, the UIs' messages): the board's ILLEGAL event, its numbers too
        wait_for(lambda: any("refused B1" in m.text for m in logger.messages), 60, lambda: session.poll(0.005))
        refusal = next(m.text for m in logger.messages if "refused B1" in m.text)
        assert refusal.startswith("refused B1: M2 (1."), refusal
    finally:
        session.close()
        runner.close()
        store.close()
