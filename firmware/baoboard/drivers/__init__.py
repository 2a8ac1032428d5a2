# Pico drivers of the reference board (hardware/): 74HC165 sensor chain, APA102/SK9822 LEDs, PicoHardware.
