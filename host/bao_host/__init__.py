"""The host side of the Bao board: the `bao` command, the logger, the game store, the simulated board."""
