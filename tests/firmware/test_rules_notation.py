# Notation (G7, G8) in both dialects, transcripts, and the JSON position format.
from bao import core, notation, position_json
from baotest import position, raises, read


def test_format_and_parse_in_both_dialects():
    p = core.initial()
    for dialect, text in (("donkers", "7L*"), ("kiba", "7<*")):
        m, _ = notation.parse_move(p, text, dialect)
        assert notation.format_move(m, 0, dialect) == text
    # The row letter may be written in the namua stage (G7) ...
    assert notation.parse_move(p, "A7L*")[0] == notation.parse_move(p, "7L*")[0]
    # ... and "*" where "**" would be written is not accepted in reverse: ** needs a takasia.
    assert raises(core.IllegalMoveError, notation.parse_move, p, "7L**").startswith("4.1:")


def test_house_marks_differ_between_dialects():
    t = notation.parse_transcript(read("games/zanzibar-1994.txt"))
    before = notation.replay(t)[29]  # North's move 15: 5R>
    m, _ = notation.parse_move(before, "5R>", "donkers")
    assert notation.format_move(m, 1, "kiba") == "5>+"
    assert notation.parse_move(before, "5>+", "kiba")[0] == m
    # In the kiba dialect ">" is a direction: "5R>" is not kiba.
    raises(core.NotationError, notation.parse_move, before, "5R>", "kiba")


def test_syntax_errors_are_notation_errors():
    p = core.initial()
    for bad in ("", "9L*", "7X", "7L*!", "C7L", "L7"):
        raises(core.NotationError, notation.parse_text, bad)
    raises(core.NotationError, notation.parse_move, p, "6*")  # direction missing on a takasa
    raises(core.NotationError, notation.format_move, 0, 0, "voogt")


def test_illegal_moves_cite_their_rule():
    p = core.initial()
    assert raises(core.IllegalMoveError, notation.parse_move, p, "5L*").startswith("2.4b:")
    assert raises(core.IllegalMoveError, notation.parse_move, p, "6L").startswith("1.7:")
    assert raises(core.IllegalMoveError, notation.parse_move, p, "1L*").startswith("2.3:")
    assert raises(core.IllegalMoveError, notation.parse_move, p, "B2L*").startswith("2.4:")
    assert raises(core.IllegalMoveError, notation.parse_move, p, "a6L*").startswith("G1:")


def test_transcript_round_trip_and_errors():
    text = read("games/zanzibar-1994.txt")
    t = notation.parse_transcript(text)
    assert t.header("South") == "Ramadhan" and t.header("takasia") == "yes"
    assert t.comments[12] == "END IN THE HOUSE"
    again = notation.format_transcript(t.headers, t.plies, t.comments)
    t2 = notation.parse_transcript(again)
    assert t2.plies == t.plies and t2.headers == t.headers and t2.comments == t.comments
    raises(core.NotationError, notation.parse_transcript, "1: 7L* 5R;\n3: 6R* 6R*;")
    raises(core.NotationError, notation.parse_transcript, "1: 7L*;\n2: 6R* 6R*;")
    raises(core.NotationError, notation.parse_transcript, "this is not a transcript")
    raises(core.NotationError, notation.rules_from_headers, {"takasia": "maybe"})


def test_replay_error_names_move_side_and_text():
    t = notation.parse_transcript("South: x\n1: 7L* 5R;\n2: 6R* 6L;\n")
    e = raises(notation.ReplayError, notation.replay, t)
    assert e.startswith("move 2 North 6L: "), e


def test_takasia_header_switches_the_rule():
    t = notation.parse_transcript("takasia: no\n1: 7L* 5R;\n")
    assert notation.replay(t)[-1].rules.takasia is False
    t = notation.parse_transcript("ruleset: malawi\n")
    assert notation.replay(t)[0].rules.ruleset == "malawi"


def test_json_round_trip_and_validation():
    p = core.initial()
    assert position_json.loads(position_json.dumps(p)) == p
    obj = position_json.to_dict(p)
    bad = [
        ({"to_move": "X"}, "to_move"),
        ({"A": [0] * 7}, "row A"),
        ({"A": [0, 0, 0, 0, 6, 2, 2, 1]}, "65 seeds"),
        ({"store": {"S": 21, "N": 22}}, "stores"),
        ({"ruleset": "oware"}, "unknown ruleset"),
        ({"takasia": "A3"}, "takasia"),
        ({"house": {"S": "yes", "N": True}}, "house S"),
        ({"options": {"colour": 1}}, "option"),
        ({"A": [0, 0, 0, 0, 6, 2, -1, 3]}, "A7"),
        ({"A": [0] * 8, "B": [0, 0, 0, 0, 6, 2, 2, 0], "house": {"S": False, "N": True}}, "front row is empty"),
    ]
    for change, words in bad:
        o = dict(obj)
        o.update(change)
        msg = raises(core.InvalidPositionError, position_json.from_dict, o)
        assert words in msg, (change, msg)
    raises(core.InvalidPositionError, position_json.loads, "{not json")
    raises(core.InvalidPositionError, position_json.loads, "[1, 2]")


def test_malawi_json_and_options():
    p = core.initial("malawi")
    obj = position_json.to_dict(p)
    assert obj["store"] == {"S": 0, "N": 0} and obj["house"] == {"S": False, "N": False}
    assert position_json.from_dict(obj).rules.ruleset == "malawi"
    q = position({"A": "0 0 2 0 0 0 0 0", "a": "1 0 0 0 0 0 0 0"}, fill="b8", house_stop_any_count=True)
    assert position_json.to_dict(q)["options"] == {"house_stop_any_count": True}
    assert position_json.loads(position_json.dumps(q)) == q


def test_g7_only_a_namua_capture_leaves_its_letter_out():
    # A namua takasa from a kichwa or kimbi may go either way (7L* and 7R* are both legal from the start):
    # without its letter it is refused, not given a direction silently.
    p = core.initial()
    for text in ("7*", "6*", "A7*"):
        msg = raises(core.NotationError, notation.parse_move, p, text)
        assert msg is not None and "direction (L or R) is missing" in msg, (text, msg)
    assert notation.parse_move(p, "7<*", "kiba")[0] == notation.parse_move(p, "7L*")[0]
    assert raises(core.NotationError, notation.parse_move, p, "7*", "kiba") is not None
    # A namua capture at pit 1, 2, 7 or 8 still leaves it out: the kichwa is forced (1.4b).
    t = notation.parse_transcript(read("games/zanzibar-1994.txt"))
    letterless = [x for x in t.plies if x in ("1", "2", "7", "8")]
    assert letterless, "the 1994 game has namua captures written without a letter"
    assert len(notation.replay(t)) == len(t.plies) + 1


def test_a_finished_game_refuses_every_move_citing_1_2():
    # Namua stage (stores not empty), South's front row empty: North has won. A back-row move is refused
    # because the game is over (1.2), before any namua rule (2.4) is looked at.
    obj = {
        "ruleset": "zanzibar",
        "to_move": "S",
        "A": [0] * 8,
        "B": [2, 0, 0, 0, 0, 0, 0, 0],
        "a": [0, 0, 0, 0, 6, 2, 2, 0],
        "b": [0, 0, 0, 0, 0, 0, 0, 32],
        "store": {"S": 10, "N": 10},
        "house": {"S": False, "N": True},
        "takasia": None,
        "winner": "N",
    }
    over = position_json.from_dict(obj)
    for text in ("B1L", "b1L", "1L*", "A1R"):
        err = raises(core.IllegalMoveError, notation.parse_move, over, text)
        assert err is not None and err.startswith("1.2:"), (text, err)
