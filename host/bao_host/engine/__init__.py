"""The host's use of the rules core's engine (bao.engine): the UCI-like protocol of `bao engine`, game analysis,
engine matches and the baseline players they are measured against."""
