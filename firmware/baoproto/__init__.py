# The board <-> host serial protocol (docs/protocol.md): its frame codec and its names, the one module both
# ends import (the board runs it under MicroPython, frozen into the image; the host imports it under CPython).
# It imports nothing of the board application or the rules core.
#   baoproto.frames   frames: encode, decode, words, fields, the MOVE payload, the line assembler
#   baoproto.crc      crc32(buf, n): binascii's where the port has it, else baoproto.crc32py's table; crc32_hex
#                     writes it in place, allocating nothing (viper) on MicroPython
#   baoproto.state    the STATE notice's names (what the board guides now, for a host's words and colours)
