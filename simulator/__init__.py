"""tabletop: a physics-backed simulator of dice war games."""
