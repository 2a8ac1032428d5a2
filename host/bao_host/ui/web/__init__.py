"""The web board of `bao serve`: the live boards as SVG lit from their LED frames, play in the browser on the
simulated board, the game library with replays (app.py: the pages and their security; live.py: the boards'
state published to the pages; library.py: search, replay frames, notations, export, analysis; svg.py: the
board drawn)."""
