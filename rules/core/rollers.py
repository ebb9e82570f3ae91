"""The seeded dice roller: uniform faces drawn from an injected numpy Generator."""

from __future__ import annotations

import numpy as np

# Faces per die kind understood by the seeded roller. Coloured d6 (D-Day Dice) are d6.
FACES = {"d6": 6, "d8": 8}


class SeededRoller:
    """Rolls fair dice with the caller's Generator; `kind` may be 'd6', 'd8' or 'd6:<colour>'."""

    name = "seeded"

    def roll(self, kind: str, n: int, rng: np.random.Generator) -> tuple[int, ...]:
        base = kind.split(":", 1)[0]
        if base not in FACES:
            raise ValueError(f"seeded roller: unknown die kind {kind!r}")
        if n < 0:
            raise ValueError(f"seeded roller: cannot roll {n} dice")
        return tuple(int(v) for v in rng.integers(1, FACES[base] + 1, size=n))
