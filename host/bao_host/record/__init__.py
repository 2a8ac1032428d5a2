"""Recording games: the serial link to a board (`link`), the session that feeds the logger and acknowledges
only what is stored (`session`), the logger that checks every move (`logger`), the game store (`store`).
Each layer reaches the one below only through its interface."""
