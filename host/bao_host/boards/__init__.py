"""The board application run on a host: simulated boards (`sim`), the emulated Pico (`pico`), the Raspberry Pi
hardware (`rpi`) and the run loop that steps the firmware on a host (`runner`)."""
