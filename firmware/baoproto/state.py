# The STATE notice's names (docs/protocol.md, "State", protocol 3): what the board guides now, one line
# the board writes whenever it changes and a host reads to say it in words and show it in colours.
#   N0 STATE stage=moving side=S pos=<hex> steps=2 lifted=A5 drop=A4,A3 lift=b2 kichwa=a1 choice=1
#            move=<code> at=<n> wrong=a3 rule=1.3 shown=A5 to=A4 setup=wait:B2 leds=<hex> why=<text: the rest>
# The keys are written as bytes by the board (baoboard.state: into one buffer, allocated once) and read as
# text by the host (bao_host.record.state). Every key but `stage` and `side` may be absent.
STATE = "STATE"  # the notice's type
PROTO_STATE = 4  # the protocol version that adds it: the board sends it to a host that speaks it
STAGES = (b"idle", b"moving", b"decision", b"over")  # the board's stage, as the recogniser's phases count them
STAGE = b" stage="
SIDE = b" side="  # S or N: the side to move
POS = b" pos="  # the position the board guides from: its bytes (bao.layout), in hex
STEPS = b" steps="  # activations of the move under way accepted so far
LIFTED = b" lifted="  # the start pit the hand sows from (its first activation only)
DROP = b" drop="  # the pits the next seed may be dropped into, comma-separated
LIFT = b" lift="  # the pits the next activation may empty: the side to move's, a relay (1.6); else a capture (1.4)
KICHWA = b" kichwa="  # the kichwas the captured seeds may go in from (1.4a)
CHOICE = b" choice=1"  # the next pits are a choice (the LEDs light them blue): a direction, a kichwa
MOVE = b" move="  # the legal move followed (the first candidate still alive; bao.layout's move code) ...
AT = b" at="  # ... and how many of its activations are made: the seeds a person sees pit by pit
WRONG = b" wrong="  # a refused touch: its pit ...
RULE = b" rule="  # ... and the rule it breaks (the text, `why`, closes the line)
SHOWN = b" shown="  # a move lit for the player (the computer's, the host's SHOW, a hint): its start pit ...
TO = b" to="  # ... and the pit its first seed goes to
LEDS = b" leds="  # the LED frame as drawn when the state changed (96 bytes, R, G, B per pit), in hex
SETUP = b" setup="  # (protocol 5) a set-up under way: steps:<places left> or wait:<pit> (the hand to leave it)
SETUP_STEPS = b"steps:"
SETUP_WAIT = b"wait:"
PROTO_SETUP = 5  # the protocol version that adds `setup=`: an older host never sees it
WHY = b" why="  # the refusal's reason, in words: the rest of the line
