"""The window's feel without a window (issue 37, item 4): when the dice are heard and how
loud, on real recorded throws (`simulator/render/core/sound.py`); the sounds the project makes;
which audio library a window opens; the settings file remembered between runs
(`simulator/render/core/settings.py`) and the command line's flags for it. The window's keys
are tested under Xvfb in tests/test_render_feel_window.py."""

from __future__ import annotations

import io
import json
import math
import wave

import numpy as np
import pytest

from dice_models import load_die
from rules.core.protocols import ThrowSpec
from simulator.physics import TableSpec, World
from simulator.physics.tray import roll_tray
from simulator.physics.world import ThrowReport
from simulator.render.core import settings as st
from simulator.render.core.playback import playback_of
from simulator.render.core.sound import (
    FULL_SPEED,
    IMPULSE_MIN,
    audio_library,
    gain_of,
    impacts_of,
    knock_wave,
    wav_bytes,
)
from simulator.render.d6.session import d6_model


def _drop(height: float) -> ThrowReport:
    """A paper d8 dropped from `height` (m, its centre) with a little spin: its report."""
    world = World(TableSpec())
    throw = ThrowSpec(release=(0.0, 0.0, height), velocity=(0.0, 0.0, 0.0), spin=(3.0, 1.0, 0.0))
    return world.throw("d", load_die("paper-d8"), throw, record=True)


def test_a_dropped_die_is_heard_when_it_lands_as_hard_as_it_lands() -> None:
    for height in (0.10, 0.30):
        report = _drop(height)
        frames = report.trajectory or ()
        pb = playback_of(frames)
        hits = impacts_of(pb)
        assert hits, height
        first = hits[0]
        # Nothing in free fall: the first sound is in the frame where the die leaves the
        # free-fall curve (by more than 5 mm: it landed).
        t_off = next(fr.t for fr in frames
                     if fr.poses["d"][0][2] > height - 4.905 * fr.t ** 2 + 0.005)
        assert first.t < t_off <= first.t + 1.5 / 60, (height, first.t, t_off)
        fall = math.sqrt(2 * 9.81 * (height - 0.02))
        assert 0.6 * fall < first.speed < 2.2 * fall, (height, first.speed, fall)
        assert first.kind == "table" and first.dice == ("d",)
        # Later bounces and rattles are softer than the landing, all within the playback.
        assert all(h.speed <= first.speed + 1e-9 for h in hits)
        assert all(0 < h.t <= pb.duration + 1e-9 for h in hits)
        assert all(b.t - a.t >= 0.03 - 1e-9 for a, b in zip(hits, hits[1:], strict=False))
    low = impacts_of(playback_of(_drop(0.10).trajectory or ()))[0]
    high = impacts_of(playback_of(_drop(0.30).trajectory or ()))[0]
    assert high.speed > 1.4 * low.speed  # sqrt(0.28 / 0.08) = 1.9 times the speed
    assert gain_of(high, 1.0, False) > gain_of(low, 1.0, False) > 0


def test_dice_in_the_tray_are_heard_on_each_other_and_on_the_tray() -> None:
    kinds: set[str] = set()
    for seed in (3, 4, 5):
        for rnd in roll_tray(d6_model(), 5, np.random.default_rng(seed), record=True).rounds:
            pb = playback_of(rnd.frames)
            hits = impacts_of(pb)
            assert hits and all(0 < h.t <= pb.duration + 1e-9 for h in hits)
            assert all(h.speed >= IMPULSE_MIN for h in hits)
            kinds |= {h.kind for h in hits}
    assert kinds == {"table", "dice"}


def test_a_resting_playback_makes_no_sound() -> None:
    report = _drop(0.10)
    frames = report.trajectory or ()
    last = frames[-1]
    assert impacts_of(playback_of([last])) == []  # one frame: no motion at all
    assert impacts_of(playback_of([])) == []


def test_volume_and_mute_scale_the_gain() -> None:
    hit = impacts_of(playback_of(_drop(0.30).trajectory or ()))[0]
    full = gain_of(hit, 1.0, False)
    assert full == pytest.approx(min(1.0, hit.speed / FULL_SPEED))
    assert gain_of(hit, 0.5, False) == pytest.approx(full * 0.5)
    assert gain_of(hit, 1.0, True) == 0.0 and gain_of(hit, 0.0, False) == 0.0


def test_the_sounds_are_short_mono_wavs_that_differ_by_kind_and_variant() -> None:
    table, dice = knock_wave("table", 0), knock_wave("dice", 0)
    assert np.max(np.abs(table)) == pytest.approx(0.9) and len(table) < 44100 * 0.2
    assert not np.array_equal(knock_wave("table", 1), table)
    assert np.array_equal(knock_wave("table", 0), table)  # the same every start

    def centroid(y: np.ndarray) -> float:
        spec = np.abs(np.fft.rfft(y))
        return float(np.sum(np.fft.rfftfreq(len(y), 1 / 44100) * spec) / np.sum(spec))

    assert centroid(dice) > 2 * centroid(table)  # a click is higher than a knock
    with wave.open(io.BytesIO(wav_bytes(table))) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 44100)
        assert w.getnframes() == len(table)
    with pytest.raises(ValueError, match="sound kind"):
        knock_wave("bell", 0)


def test_a_machine_without_a_sound_device_gets_null_audio(tmp_path) -> None:
    assert audio_library({"TABLETOP_AUDIO": "null"}) == "null"
    assert audio_library({"TABLETOP_AUDIO": "openal"}) == "p3openal_audio"
    runtime = tmp_path / "run"
    (runtime / "pulse").mkdir(parents=True)
    (runtime / "pulse" / "native").write_text("")
    assert audio_library({"XDG_RUNTIME_DIR": str(runtime)}) == "p3openal_audio"
    import os
    import sys
    if sys.platform.startswith("linux") and not os.path.isdir("/dev/snd"):
        assert audio_library({"XDG_RUNTIME_DIR": str(tmp_path)}) == "null"


# -- the settings file --------------------------------------------------------------------


def test_settings_path_follows_the_environment(tmp_path) -> None:
    assert st.settings_path({st.ENV: str(tmp_path / "s.json"), "XDG_CONFIG_HOME": "/x"}) \
        == tmp_path / "s.json"
    assert st.settings_path({"XDG_CONFIG_HOME": "/x"}).as_posix() == "/x/tabletop/settings.json"
    assert st.settings_path({"HOME": "/h"}).as_posix() == "/h/.config/tabletop/settings.json"


def test_settings_are_written_whole_and_read_back_with_unknown_fields_kept(tmp_path) -> None:
    path = tmp_path / "deep" / "settings.json"
    assert st.load(path) == (st.Settings(), {}, [])  # none yet: the defaults, no complaint
    prefs = st.Remembered(path, st.Settings(), {"theme": "dark"})
    assert prefs.change(volume=0.3, mute=True) == ""
    assert json.loads(path.read_text()) == {"theme": "dark", "window_size": [1280, 720],
                                            "shading": "auto", "volume": 0.3, "mute": True,
                                            "fast_forward": 4, "shadows": "auto"}
    settings, kept, problems = st.load(path)
    assert problems == [] and kept["theme"] == "dark"
    assert settings == st.Settings(volume=0.3, mute=True)
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary left


@pytest.mark.parametrize("text, field", [
    ('{"volume": 3}', "volume"),
    ('{"volume": "loud"}', "volume"),
    ('{"mute": "yes"}', "mute"),
    ('{"shading": "fancy"}', "shading"),
    ('{"window_size": [10, 10]}', "window_size"),
    ('{"window_size": "big"}', "window_size"),
    ('{"fast_forward": 3}', "fast_forward"),
    ('{"shadows": "hard"}', "shadows"),
    ('{"volume": 0.5,', "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"volume": 0.5}\xff', "UTF-8"),
])
def test_a_bad_settings_file_is_one_line_and_the_defaults_and_is_left_alone(
        tmp_path, text, field, capsys) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text
                     else text.encode("latin-1"))
    before = path.read_bytes()
    prefs = st.Remembered.read(path)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and field in err, err
    assert "Traceback" not in err
    assert prefs.settings == st.Settings()
    assert path.read_bytes() == before


def test_a_bad_field_names_the_field_before_the_value_and_the_others_still_count(tmp_path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"volume": 7, "mute": true, "shading": "gl"}')
    settings, _kept, problems = st.load(path)
    assert settings == st.Settings(mute=True, shading="gl")
    assert problems == [f"{path}: volume: must be a number from 0 to 1 (got 7); using 0.8"]


def test_flags_win_over_the_file_for_the_run_and_are_not_written(tmp_path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"shading": "gl", "volume": 0.2}')
    prefs = st.Remembered.read(path, shading="software", volume=None, mute=True)
    assert prefs.settings == st.Settings(shading="software", volume=0.2, mute=True)
    assert json.loads(path.read_text()) == {"shading": "gl", "volume": 0.2}
    prefs.change(mute=False)  # the player's change in the window: remembered, flag dropped
    assert prefs.settings.mute is False and prefs.settings.shading == "software"
    assert json.loads(path.read_text())["shading"] == "gl"
    assert json.loads(path.read_text())["mute"] is False


def test_a_settings_file_that_cannot_be_written_is_said_and_the_run_goes_on(tmp_path) -> None:
    where = tmp_path / "a-file"
    where.write_text("")
    prefs = st.Remembered(where / "settings.json", st.Settings())
    said = prefs.change(volume=0.1)
    assert said.startswith("settings not saved: ") and "\n" not in said
    assert prefs.settings.volume == 0.1


def test_the_command_line_reads_the_settings_flags() -> None:
    import argparse

    from simulator.cli import play, replay
    for mod in (play, replay):
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        mod.add_parser(sub)
        name = "play" if mod is play else "replay"
        first = ["dday"] if mod is play else ["game.jsonl"]
        args = parser.parse_args([name, *first])
        assert (args.shading, args.volume, args.mute, args.settings) == (None, None, None, None)
        args = parser.parse_args([name, *first, "--volume", "0.25", "--no-mute", "--settings",
                                  "s.json", "--shading", "gl"])
        assert (args.shading, args.volume, args.mute, args.settings) == ("gl", 0.25, False,
                                                                          "s.json")
        with pytest.raises(SystemExit):
            parser.parse_args([name, *first, "--volume", "2"])


def test_play_reads_a_bad_settings_file_only_when_a_window_is_to_open(tmp_path, monkeypatch,
                                                                     capsys) -> None:
    """No display: one line saying so, the settings file neither read nor touched."""
    from simulator.cli.main import main

    path = tmp_path / "settings.json"
    path.write_text('{"volume": 7}')
    monkeypatch.setenv(st.ENV, str(path))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["play", "diced", "--volume", "0.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "display" in err and "volume" not in err
    assert path.read_text() == '{"volume": 7}'


def test_window_prefs_take_the_file_then_the_flags(tmp_path, capsys) -> None:
    import argparse

    from simulator.render.app import window_prefs

    path = tmp_path / "s.json"
    path.write_text('{"shading": "software", "volume": 7}')
    args = argparse.Namespace(settings=str(path), shading=None, volume=None, mute=True)
    prefs = window_prefs(args)
    assert prefs.settings == st.Settings(shading="software", mute=True)
    assert capsys.readouterr().err == f"{path}: volume: must be a number from 0 to 1 (got 7); using 0.8\n"
    args.shading = "gl"
    assert window_prefs(args).settings.shading == "gl"
