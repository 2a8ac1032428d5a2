"""What the host's tests and the benchmark tools share: the simulated board and its hands (simrig), a link
to an in-memory board (simline), the web board served for a browser (webrig), a proxy that damages a serial
line (faultproxy), and the board-to-logger fault run (faults). An installed package (pyproject.toml), so that
tools import it as they import the product, not from the tests' folder."""
