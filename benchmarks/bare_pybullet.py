"""The bare-PyBullet reference loop, kept importable here for the plain benchmark scripts;
it lives in `simulator.bench.bare` so that the installed `tabletop bench` command has it."""

from simulator.bench.bare import BareLoop

__all__ = ["BareLoop"]
