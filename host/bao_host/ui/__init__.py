"""What a person sees: the terminal UI (`tui`), the live view of `bao log` (`live`), board diagrams
(`diagram`), all on one board adapter (`adapter`)."""
