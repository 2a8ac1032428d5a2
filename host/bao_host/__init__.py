"""The host side of the Bao board, in layers (each reaches the ones below only through their interfaces):

- `cli/`: the `bao` command: argument parsing and messages, one module per group of sub-commands;
- `ui/`: what a person sees: the terminal UI and live views, on one board adapter;
- `engine/`: the engine protocol, game analysis, matches and baseline players;
- `boards/`: the board application run on a host: simulated, emulated Pico, Raspberry Pi;
- `record/`: the serial link, the session, the logger and the game store.
"""
