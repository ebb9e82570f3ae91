"""Dice you can hear: a short knock when a die hits the table (or the tray's wall) and a
click when dice hit each other, as loud as the impact was hard.

Where the impacts are (`impacts_of`): the window plays a throw back from the physics' 60 Hz
poses (`playback.py`), and those poses give each die's velocity from frame to frame. In
free flight the velocity changes by gravity alone (9.81 m/s^2 x 1/60 s = 0.16 m/s down a
frame); a change of velocity beyond that, `IMPULSE_MIN` or more in one frame, is a contact
pushing the die: an impact, whose speed is that change (frames in a row that each have one
are one impact, their changes added). A die that starts moving after rest (knocked by
another) was hit. An impact while another die whose centre is less than `DICE_NEAR` away is
pushed too (half IMPULSE_MIN or more, within a frame) is dice on dice (a click); any other
is the table's (a knock). Impacts less than `MERGE_S` apart are one sound, the louder.

How loud (`gain_of`): in proportion to the impact's speed, full at `FULL_SPEED` (a die
dropped from about 30 cm lands at 2.4 m/s), times the volume setting; muted: none.

The sounds are made here, not shipped (`knock_wave`): a few damped sine modes and a short
noise burst, three variants of each kind drawn from a fixed seed, written once as 16-bit
mono WAV files into a cache folder (`$XDG_CACHE_HOME/tabletop/sounds`, else
`~/.cache/tabletop/sounds`, through `dice_models.outfiles`) and loaded by Panda3D's audio
manager (`SoundBoard`). Where there is no sound device (a headless machine, Xvfb), the
window uses Panda3D's null audio (`audio_library`): every sound is a silent stand-in, no
library is opened, nothing is printed; the impacts are still worked out and counted
(`SoundBoard.played`), so what the window would play is testable anywhere.

Plain Python and numpy, except `SoundBoard`, which takes the ShowBase it plays through.
"""

from __future__ import annotations

import io
import math
import os
import sys
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simulator.render.core.playback import Playback, Track

__all__ = ["FULL_SPEED", "IMPULSE_MIN", "Knock", "SoundBoard", "audio_library", "audio_prc",
           "gain_of", "impacts_of", "knock_wave", "sound_cache"]

G = 9.81
IMPULSE_MIN = 0.25  # m/s: a change of velocity in one frame beyond gravity's that is heard
FULL_SPEED = 2.4  # m/s: an impact this hard plays at the full volume
MERGE_S = 0.03  # s: impacts closer than this are one sound
DICE_NEAR = 0.03  # m: centres this close (a d6 is 16 mm) and both pushed: dice on dice
REST_GAP_S = 0.05  # s: a gap between a die's frames longer than this is rest (playback.py)
RATE = 44100  # Hz
VARIANTS = 3  # recordings of each kind, taken in turn
KINDS = ("table", "dice")


@dataclass(frozen=True)
class Knock:
    t: float  # s into the playback
    speed: float  # m/s: the change of velocity
    kind: str  # "table" (a die on the table, the tray) or "dice" (dice on each other)
    dice: tuple[str, ...]


def _die_hits(track: Track, start: float, least: float = IMPULSE_MIN) -> list[tuple[float, float]]:
    """(t, speed) of every frame in which the die's velocity changed by more than gravity
    and IMPULSE_MIN. `start`: the playback's first time (a track starting later than that
    starts from rest: the die was hit)."""
    times = np.asarray(track.times, dtype=float)
    pos = np.asarray([p for p, _q in track.poses], dtype=float).reshape(-1, 3)
    if len(times) < 2:
        return []
    dt = np.diff(times)
    vel = np.diff(pos, axis=0) / np.maximum(dt, 1e-9)[:, None]
    moving = dt <= REST_GAP_S
    vel[~moving] = 0.0  # a gap: the die rested between its frames
    hits: list[tuple[float, float]] = []
    # the velocity before each step's: the previous step's, or rest at a start from rest
    prev = np.vstack([np.zeros(3), vel[:-1]])
    prev_dt = np.concatenate([[dt[0]], dt[:-1]])
    first_from_rest = times[0] > start + 1e-9
    for i in range(len(vel)):
        if not moving[i]:
            continue
        if i == 0 and not first_from_rest:
            continue  # the release: its velocity was given, not struck
        dv = vel[i] - prev[i]
        if i > 0 and moving[i - 1]:
            dv[2] += G * 0.5 * (dt[i] + prev_dt[i])  # what gravity alone changes
        speed = float(np.linalg.norm(dv))
        if speed >= least:
            hits.append((float(times[i]), speed))
    # frames in a row with a hit each are one impact
    joined: list[tuple[float, float]] = []
    for t, s in hits:
        if joined and t - joined[-1][0] <= 1.5 / 60:
            joined[-1] = (joined[-1][0], joined[-1][1] + s)
        else:
            joined.append((t, s))
    return joined


def impacts_of(playback: Playback) -> list[Knock]:
    """Every impact of a recorded throw's playback, in time order (the module's note)."""
    if not playback.tracks:
        return []
    start = min(tr.times[0] for tr in playback.tracks.values() if tr.times)
    hits = sorted((t, s, name) for name, tr in playback.tracks.items()
                  for t, s in _die_hits(tr, start))
    # a die pushed back when another hits it (equal and opposite), a smaller change
    felt = {name: [t for t, _s in _die_hits(tr, start, IMPULSE_MIN / 2)]
            for name, tr in playback.tracks.items()}

    def on_dice(t: float, name: str) -> bool:
        here = playback.tracks[name].at(t)[0]
        return any(other != name and math.dist(here, tr.at(t)[0]) < DICE_NEAR
                   and any(abs(u - t) <= 1.5 / 60 for u in felt[other])
                   for other, tr in playback.tracks.items())

    out: list[Knock] = []
    for t, s, name in hits:
        kind = "dice" if on_dice(t, name) else "table"
        last = out[-1] if out else None
        if last is not None and t - last.t < MERGE_S:
            together = last.dice if name in last.dice else (*last.dice, name)
            kind = "dice" if "dice" in (kind, last.kind) else "table"
            out[-1] = Knock(last.t, max(last.speed, s), kind, together)
        else:
            out.append(Knock(t, s, kind, (name,)))
    return out


def gain_of(impact: Knock, volume: float, mute: bool) -> float:
    """How loud an impact plays, 0..1."""
    if mute or volume <= 0:
        return 0.0
    return min(1.0, impact.speed / FULL_SPEED) * min(1.0, volume)


def knock_wave(kind: str, variant: int) -> np.ndarray:
    """The sound of one impact as float samples in -1..1 at RATE: a wooden knock ("table")
    or a sharp click of dice ("dice"), variant 0..VARIANTS-1."""
    if kind not in KINDS:
        raise ValueError(f"sound kind must be one of {', '.join(KINDS)} (got {kind!r})")
    rng = np.random.default_rng(1000 * KINDS.index(kind) + variant)
    if kind == "table":  # a few low modes of a board, ringing ~30 ms
        length, modes = 0.14, [(190, 0.030, 1.0), (430, 0.020, 0.7), (910, 0.012, 0.45),
                                (1750, 0.006, 0.3)]
        burst = 0.004
    else:  # hard plastic or bone on itself: high, short
        length, modes = 0.08, [(2300, 0.010, 1.0), (3700, 0.007, 0.7), (5200, 0.005, 0.5),
                                (7600, 0.003, 0.3)]
        burst = 0.0015
    t = np.arange(int(RATE * length)) / RATE
    y = np.zeros_like(t)
    for f0, tau, a in modes:
        f = f0 * (1.0 + 0.06 * (rng.random() - 0.5))
        y += a * np.exp(-t / tau) * np.sin(2 * math.pi * f * t + rng.random() * 2 * math.pi)
    noise = rng.standard_normal(len(t))
    if kind == "table":  # a soft strike: the noise's highs taken off (a 2 ms moving average)
        noise = np.convolve(noise, np.ones(88) / 88 ** 0.5, mode="same")
    y += 0.6 * noise * np.exp(-t / burst)  # the strike itself
    y *= np.minimum(1.0, t / 0.0005)  # no click at the very start
    return np.asarray(0.9 * y / np.max(np.abs(y)), dtype=float)


def wav_bytes(samples: np.ndarray) -> bytes:
    """16-bit mono WAV of samples in -1..1 at RATE."""
    pcm = np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


def sound_cache(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "tabletop" / "sounds"


def audio_library(env: dict[str, str] | None = None) -> str:
    """Panda3D's `audio-library-name` for a window here: `TABLETOP_AUDIO` (null or openal)
    when set, else OpenAL where a sound device can be there and "null" where none can
    (Linux with no /dev/snd playback device and no PulseAudio or PipeWire socket: a headless
    machine, a container, Xvfb), so no sound library is opened to fail at every start."""
    env = dict(os.environ) if env is None else env
    asked = env.get("TABLETOP_AUDIO", "").strip().lower()
    if asked in ("null", "openal"):
        return "null" if asked == "null" else "p3openal_audio"
    if sys.platform.startswith("linux") and not _linux_sound(env):
        return "null"
    return "p3openal_audio"


def audio_prc(env: dict[str, str] | None = None) -> str:
    """The Panda3D config line a window opens its sound with (`audio_library`)."""
    return f"audio-library-name {audio_library(env)}"


def _linux_sound(env: dict[str, str]) -> bool:
    if env.get("PULSE_SERVER"):
        return True
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and any((Path(runtime) / s).exists() for s in ("pulse/native", "pipewire-0")):
        return True
    try:
        return any(n.startswith("pcmC") and n.endswith("p") for n in os.listdir("/dev/snd"))
    except OSError:
        return False


class SoundBoard:
    """The impact sounds of one window, played through `base`'s sound-effects manager.
    `start(anim)` takes the impacts of an animation's playback (an animation without one
    makes no sound); `tick(t)` plays those reached t s into it, each at `gain_of`.
    `played` counts what it played (gain > 0) and `heard` lists (t, kind, gain), the last
    100, for scripts and tests. A WAV that cannot be cached is said once in `problem`; the
    game goes on without sound."""

    def __init__(self, base: Any, volume: float = 0.8, mute: bool = False,
                 cache: Path | None = None) -> None:
        self.volume = volume
        self.mute = mute
        self.played = 0
        self.heard: list[tuple[float, str, float]] = []
        self.problem = ""
        self._pending: list[Knock] = []
        self._turn = 0
        self._manager: Any = base.sfxManagerList[0] if getattr(base, "sfxManagerList", None) else None
        self._sounds: dict[str, list[Any]] = {}
        if self._manager is not None:
            self._load(cache or sound_cache())

    @property
    def device(self) -> bool:
        """A sound device is playing (False: Panda3D's null audio)."""
        m = self._manager
        return m is not None and type(m).__name__ != "NullAudioManager" and bool(m.isValid())

    def _load(self, folder: Path) -> None:
        from panda3d.core import Filename

        from dice_models import DataError
        from dice_models.outfiles import ensure_dir, write_bytes

        manager = self._manager
        try:
            ensure_dir(folder, "sound cache")
            for kind in KINDS:
                for k in range(VARIANTS):
                    path = folder / f"{kind}-{k}.wav"
                    data = wav_bytes(knock_wave(kind, k))
                    if not path.is_file() or path.stat().st_size != len(data):
                        write_bytes(path, data, "sound cache")
                    sound = manager.getSound(Filename.fromOsSpecific(str(path)))
                    self._sounds.setdefault(kind, []).append(sound)
        except (DataError, OSError) as exc:
            self.problem = f"no dice sounds: {exc}"
            self._sounds = {}

    def start(self, anim: Any) -> None:
        pb = getattr(anim, "playback", None)
        self._pending = impacts_of(pb) if isinstance(pb, Playback) else []

    def stop(self) -> None:
        self._pending = []

    def tick(self, t: float) -> list[Knock]:
        """Play the impacts up to t s into the animation; the ones played."""
        due = []
        while self._pending and self._pending[0].t <= t:
            due.append(self._pending.pop(0))
        # a frame that skipped ahead (fast-forward, a slow frame) plays its loudest only
        loud = max(due, key=lambda i: i.speed, default=None)
        if loud is not None:
            self._play(loud)
        return due

    def _play(self, impact: Knock) -> None:
        gain = gain_of(impact, self.volume, self.mute)
        if gain <= 0:
            return
        self.played += 1
        self.heard = [*self.heard[-99:], (impact.t, impact.kind, gain)]
        sounds = self._sounds.get(impact.kind)
        if sounds:
            sound = sounds[self._turn % len(sounds)]
            self._turn += 1
            sound.setVolume(gain)
            sound.play()
