"""Any die (issue 17): the standard polyhedral set as data, mass models against closed
forms and trimesh, mesh dice (loading, checks, face finding, the same outcomes as the
analytic die), and the fairness lab on a d20 (fair, and with its centre of mass moved)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import trimesh

from dice_models import DataError, available, load_die, parse_die
from dice_models.geometry import (
    PHI,
    Polyhedron,
    canonical_order,
    cube,
    dodecahedron,
    icosahedron,
    octahedron,
    tetrahedron,
    trapezohedron,
)
from dice_models.mass import (
    MassSpec,
    Pips,
    die_properties,
    inset,
    pip_positions,
    pip_profile,
    revolution_part,
)
from simulator.cli.main import main
from simulator.physics import World, die_shape
from simulator.physics.dice import COM_ROUND_OFF
from simulator.physics.throws import random_throw
from simulator.physics.world import TableSpec

DENSITY = 1180.0  # kg/m^3
POLYHEDRA = {"tetrahedron": tetrahedron(0.02), "cube": cube(0.016), "octahedron": octahedron(0.014),
             "dodecahedron": dodecahedron(0.0081), "icosahedron": icosahedron(0.0132),
             "trapezohedron": trapezohedron(10, 0.02, 0.016)}


def _mesh(poly: Polyhedron) -> trimesh.Trimesh:
    """trimesh's mesh of a polyhedron, in mm."""
    tris = poly.triangles() * MM
    return trimesh.Trimesh(vertices=tris.reshape(-1, 3), faces=np.arange(len(tris) * 3).reshape(-1, 3),
                           process=True)


def _moment(props: object) -> float:
    """The one principal moment of a die whose tensor is a multiple of the identity."""
    inertia = props.inertia  # type: ignore[attr-defined]
    assert np.allclose(inertia, inertia[0, 0] * np.eye(3), rtol=1e-9, atol=1e-18)
    return float(inertia[0, 0])


# --- the standard set ---------------------------------------------------------------------


@pytest.mark.parametrize("name,n", [("d4", 4), ("d6", 6), ("d8", 8), ("d10", 10), ("d00", 10),
                                    ("d12", 12), ("d20", 20), ("d20-spindown", 20)])
def test_standard_set_ships_with_conventional_numbering(name: str, n: int) -> None:
    """Issue 17: "d4 ... d20, with the conventional numberings (opposite faces summing to n+1
    where that is the convention; a spindown d20 as a second numbering)"."""
    shape = die_shape(load_die(name))
    assert shape.poly.n_faces == n and len(set(shape.values)) == n
    if name == "d4":  # read at the top corner: each value once, whatever face is down
        assert sorted(shape.shown_on) == [1, 2, 3, 4]
    elif name == "d20-spindown":  # consecutive numbers on faces that share an edge
        face = {v: f for f, v in enumerate(shape.values)}
        assert all(face[v + 1] in shape.poly.adjacency[face[v]] for v in range(1, 20))
    else:
        total = {"d10": 9, "d00": 90}.get(name, n + 1)
        assert all(shape.values[f] + shape.values[shape.opposite[f]] == total for f in range(n))
        assert shape.shown_on == [shape.values[shape.opposite[f]] for f in range(n)]


def test_a_d4_refuses_to_be_read_by_its_top_face() -> None:
    data = load_die("d4").to_json()
    data["reading"] = "top_face"
    with pytest.raises(DataError, match="no face faces up when the die rests on face 0"):
        die_shape(parse_die(data, "d4-top.yaml"))


def test_the_d10_is_a_pentagonal_trapezohedron_of_planar_kites() -> None:
    poly = POLYHEDRA["trapezohedron"]
    assert [len(f) for f in poly.faces] == [4] * 10
    for f, face in enumerate(poly.faces):  # every corner lies in its face's plane
        heights = poly.vertices[list(face)] @ poly.normals[f] - poly.face_offsets[f]
        assert np.abs(heights).max() < 1e-15
    assert np.ptp(poly.vertices[:, 2]) == pytest.approx(0.02)


# --- mass models against closed forms and trimesh -----------------------------------------


def test_solid_regular_dice_match_closed_forms() -> None:
    """I = m a^2 / 6 (cube), m a^2 / 10 (octahedron), m a^2 / 20 (tetrahedron),
    m a^2 phi^2 / 10 (icosahedron), m a^2 (95 + 39 sqrt 5) / 300 (dodecahedron), each about
    any axis through the centre; volumes a^3, sqrt2/3 a^3, a^3/(6 sqrt2), 5(3+sqrt5)/12 a^3,
    (15 + 7 sqrt5)/4 a^3."""
    closed = {"cube": (0.016, 1.0, 1 / 6), "octahedron": (0.014, math.sqrt(2) / 3, 1 / 10),
              "tetrahedron": (0.02, 1 / (6 * math.sqrt(2)), 1 / 20),
              "icosahedron": (0.0132, 5 * (3 + math.sqrt(5)) / 12, PHI ** 2 / 10),
              "dodecahedron": (0.0081, (15 + 7 * math.sqrt(5)) / 4, (95 + 39 * math.sqrt(5)) / 300)}
    for kind, (a, vol, k) in closed.items():
        props = die_properties(POLYHEDRA[kind], MassSpec(), (), density=DENSITY)
        assert props.mass == pytest.approx(DENSITY * vol * a ** 3, rel=1e-12), kind
        assert _moment(props) == pytest.approx(k * props.mass * a * a, rel=1e-12), kind
        assert np.abs(props.com).max() < 1e-15


def test_shells_with_walls_match_closed_forms() -> None:
    """A cube shell of side s and wall t: I = rho (s^5 - (s - 2t)^5) / 6; an octahedron or
    tetrahedron shell is the solid minus the same solid of inradius r - t; a thin shell
    tends to 5 m s^2 / 18; a printed cube fills its inside at 15%."""
    s, t = 0.016, 0.001
    props = die_properties(cube(s), MassSpec("shell", t), (1,) * 6, density=DENSITY)
    assert props.mass == pytest.approx(DENSITY * (s ** 3 - (s - 2 * t) ** 3), rel=1e-12)
    assert _moment(props) == pytest.approx(DENSITY * (s ** 5 - (s - 2 * t) ** 5) / 6, rel=1e-12)
    thin = die_properties(cube(s), MassSpec("shell", 1e-7), (1,) * 6, mass=0.002)
    assert _moment(thin) == pytest.approx(5 * 0.002 * s * s / 18, rel=1e-4)
    # octahedron and tetrahedron: the inside is the same solid with its inradius less t
    for make, a, vol, k in ((octahedron, 0.014, math.sqrt(2) / 3, 1 / 10),
                            (tetrahedron, 0.02, 1 / (6 * math.sqrt(2)), 1 / 20)):
        poly = make(a)
        inner = a * (1 - t / poly.face_offsets[0])
        shell = die_properties(poly, MassSpec("shell", t), (1,) * poly.n_faces, density=DENSITY)
        assert shell.mass == pytest.approx(DENSITY * vol * (a ** 3 - inner ** 3), rel=1e-12)
        assert _moment(shell) == pytest.approx(DENSITY * vol * k * (a ** 5 - inner ** 5),
                                               rel=1e-12)
    printed = die_properties(cube(s), MassSpec("printed", t, 0.15), (1,) * 6, density=DENSITY)
    assert printed.mass == pytest.approx(DENSITY * (s ** 3 - 0.85 * (s - 2 * t) ** 3), rel=1e-12)
    assert _moment(printed) == pytest.approx(
        DENSITY * (s ** 5 - 0.85 * (s - 2 * t) ** 5) / 6, rel=1e-12)


MM = 1000.0  # trimesh merges vertices closer than 1e-8 of its units: its meshes here are in mm


@pytest.mark.parametrize("name", available())
def test_every_shipped_die_matches_trimesh(name: str) -> None:
    """Mass, centre of mass and inertia tensor of every shipped die against trimesh's own
    mass properties of the same solid; a pip die against trimesh's meshes of the body and
    of each pip (a fine solid of revolution), subtracted by hand. Thin card shells are
    checked against DESIGN.md's m a^2/6 and 5 m s^2/18 in tests/test_physics_core.py."""
    model = load_die(name)
    shape = die_shape(model)
    if model.mass_model == "shell" and model.wall is None:
        return
    parts = [(_mesh(shape.poly), 1.0)]
    if model.mass_model != "solid":
        assert model.wall is not None
        inner = _mesh(inset(shape.poly, model.wall))
        parts.append((inner, (model.infill or 0.0) - 1.0))
    if model.pips is not None:
        parts += [(_pip_mesh(at, inward, model.pips), -1.0)
                  for at, inward in pip_positions(shape.poly, shape.values, model.pips)]
    mass, com, inertia = _combine_trimesh(parts)
    rho = model.mass / mass
    tol = 2e-4 if model.pips is not None else 1e-9  # the pips' meshes are 360-gons
    assert shape.mass.mass == pytest.approx(rho * mass, rel=tol)
    expected_com = com
    if model.com_offset is not None:
        return  # tampering moves the centre of mass: tests/test_physics_core.py
    # COM_ROUND_OFF: the bipyramid's 7-digit vertices put its centroid 7e-9 m off, which
    # DieShape rounds to the centre
    np.testing.assert_allclose(shape.mass.com, expected_com,
                               atol=max(tol, COM_ROUND_OFF) * shape.poly.circumradius)
    np.testing.assert_allclose(shape.mass.inertia, rho * inertia, rtol=tol,
                               atol=tol * np.abs(inertia).max() * rho)


def test_a_spherical_and_a_cylindrical_pip_match_closed_forms() -> None:
    """Cylinder of radius a and depth h: V = pi a^2 h, I about its axis m a^2/2 and across it
    m (3 a^2 + h^2)/12; a spherical cap of height h on a ball of radius R:
    V = pi h^2 (3R - h)/3, its centroid 3 (2R - h)^2 / (4 (3R - h)) from the ball's centre."""
    a, h = 0.0015, 0.001
    cyl = revolution_part(pip_profile(Pips(2 * a, h, "cylindrical")), h, np.zeros(3),
                          np.array([0.0, 0.0, 1.0]), 1.0)
    m = math.pi * a * a * h
    assert cyl.volume == pytest.approx(m, rel=1e-12)
    np.testing.assert_allclose(np.diag(cyl.inertia), [m * (3 * a * a + h * h) / 12] * 2
                               + [m * a * a / 2], rtol=1e-12)
    big_r = (a * a + h * h) / (2 * h)
    cap = revolution_part(pip_profile(Pips(2 * a, h)), h, np.zeros(3), np.array([0.0, 0.0, 1.0]),
                          1.0)
    assert cap.volume == pytest.approx(math.pi * h * h * (3 * big_r - h) / 3, rel=1e-12)
    from_centre = 3 * (2 * big_r - h) ** 2 / (4 * (3 * big_r - h))
    assert cap.com[2] == pytest.approx(h - big_r + from_centre, rel=1e-12)


def test_a_pip_d6_loses_most_on_its_6_face() -> None:
    """Issue 17: "a pip d6 loses most material on its 6 face": its centre of mass moves
    toward the 1 face (opposite the 6), and the die weighs less than the flush one."""
    pips, flush = die_shape(load_die("d6-pips")), die_shape(load_die("d6-flush"))
    shares = pips.poly.normals @ pips.mass.com
    assert int(np.argmax(shares)) == pips.values.index(1)
    assert int(np.argmin(shares)) == pips.values.index(6)
    assert pips.mass.mass < flush.mass.mass
    assert not np.allclose(pips.mass.inertia, np.diag(np.diag(pips.mass.inertia)), atol=1e-15)


def test_engraved_numbers_move_the_centre_toward_the_least_inked_face() -> None:
    """An engraved d20 loses more on "20" than on "1": its centre of mass moves toward 1,
    and the full tensor with its principal axes goes to the physics."""
    model = parse_die({**load_die("d20").to_json(), "engraving": {"depth": 0.0005,
                                                                 "height": 0.005}}, "eng.yaml")
    shape = die_shape(model)
    shares = shape.poly.normals @ shape.mass.com
    assert shape.values[int(np.argmin(shares))] in (18, 20)  # the most ink: 18 or 20
    assert float(np.linalg.norm(shape.mass.com)) > 1e-6
    moments, axes = shape.mass.principal()
    np.testing.assert_allclose(axes @ np.diag(moments) @ axes.T, shape.mass.inertia, rtol=1e-9)
    np.testing.assert_allclose(shape.principal_axes, axes)


def _pip_mesh(at: np.ndarray, inward: np.ndarray, pips: Pips) -> trimesh.Trimesh:
    """trimesh's mesh of one pip (in mm): its profile revolved in 720 sections."""
    z = np.linspace(0.0, pips.depth, 100)
    r = np.sqrt(np.maximum(pip_profile(pips)(z), 0.0))
    mesh = trimesh.creation.revolve(np.column_stack([np.r_[0.0, r], np.r_[0.0, z]]) * MM,
                                    sections=360)
    frame = np.eye(4)
    frame[:3, :3] = trimesh.geometry.align_vectors([0, 0, 1], inward)[:3, :3]
    frame[:3, 3] = at * MM
    mesh.apply_transform(frame)
    return mesh


def _combine_trimesh(parts: list[tuple[trimesh.Trimesh, float]]) -> tuple[float, np.ndarray,
                                                                           np.ndarray]:
    """(volume-mass, centre, inertia) in m of trimesh parts (in mm) at relative densities."""
    masses = [sign * m.volume / MM ** 3 for m, sign in parts]
    total = sum(masses)
    com = sum(mm * m.center_mass / MM for mm, (m, _s) in zip(masses, parts, strict=True)) / total
    inertia = np.zeros((3, 3))
    for mm, (m, sign) in zip(masses, parts, strict=True):
        d = m.center_mass / MM - com
        inertia += sign * m.moment_inertia / MM ** 5 + mm * (d @ d * np.eye(3) - np.outer(d, d))
    return total, com, inertia


# --- mesh dice --------------------------------------------------------------------------


def _write_mesh(poly: Polyhedron, path: Path, noise: float = 0.0, subdivide: int = 0,
                seed: int = 0) -> Path:
    """A polyhedron as a mesh file (in mm), optionally subdivided (interior and edge points
    on the faces, as CAD exports have) and with noise on its vertices."""
    mesh = trimesh.Trimesh(vertices=poly.triangles().reshape(-1, 3) * MM,
                           faces=np.arange(len(poly.triangles()) * 3).reshape(-1, 3), process=True)
    for _ in range(subdivide):
        mesh = mesh.subdivide()
    if noise:
        rng = np.random.default_rng(seed)
        mesh.vertices = mesh.vertices + rng.normal(0.0, noise * MM, mesh.vertices.shape)
    mesh.export(path)
    return path


def _die_file(tmp: Path, mesh: Path, values: list[int] | None = None, **extra: object) -> Path:
    import yaml

    data: dict[str, object] = {"name": mesh.stem, "geometry": {"kind": "mesh", "file": mesh.name,
                                                                "units": "mm"},
                               "mass_model": "solid", **extra}
    if "mass" not in data:
        data["density"] = DENSITY
    if values is not None:
        data["values"] = values
    path = tmp / f"{mesh.stem}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _matching(found: Polyhedron, poly: Polyhedron, max_deg: float) -> list[int]:
    """For each face of `poly`, the face of `found` with the nearest normal (asserting it
    lies within max_deg and that the matching is one to one)."""
    cos = poly.normals @ found.normals.T
    match = [int(np.argmax(row)) for row in cos]
    assert len(set(match)) == poly.n_faces
    worst = math.degrees(math.acos(min(1.0, float(cos[np.arange(poly.n_faces), match].min()))))
    assert worst < max_deg, worst
    return match


@pytest.mark.parametrize("kind", sorted(POLYHEDRA))
@pytest.mark.parametrize("suffix", [".stl", ".obj", ".glb"])
def test_faces_of_each_polyhedron_are_found_in_its_mesh(kind: str, suffix: str, tmp_path: Path) -> None:
    """Issue 17: "Face identification on each polyhedron": every format, one face per face
    of the polyhedron (coplanar facets merged), in the same canonical order, same normals."""
    poly = canonical_order(POLYHEDRA[kind])
    reading = "top_vertex" if kind == "tetrahedron" else "top_face"
    model = load_die(_die_file(tmp_path, _write_mesh(poly, tmp_path / f"{kind}{suffix}"),
                               reading=reading))
    shape = die_shape(model)
    assert shape.poly.n_faces == poly.n_faces
    assert _matching(shape.poly, poly, 1e-4) == list(range(poly.n_faces))
    # the mesh's mass properties are the analytic solid's (float32 STL: to 1e-6)
    solid = die_properties(poly, MassSpec(), (), density=DENSITY)
    assert shape.mass.mass == pytest.approx(solid.mass, rel=1e-6)
    np.testing.assert_allclose(np.sort(shape.principal_moments), np.sort(np.linalg.eigvalsh(
        solid.inertia)), rtol=1e-5)
    assert float(np.linalg.norm(shape.mass.com)) < 1e-6 * poly.circumradius


@pytest.mark.parametrize("kind", ["icosahedron", "dodecahedron", "cube"])
@pytest.mark.parametrize("subdivide", [0, 2])
def test_faces_are_found_on_a_mesh_with_noise(kind: str, subdivide: int, tmp_path: Path) -> None:
    """A die scanned with noise: meshed as is, or subdivided twice (points inside the faces
    and on the edges), and every vertex moved by noise of standard deviation 0.1 mm (0.5% of
    a 20 mm die): still one face per face, each within 2 deg of the true one. (Before slivers
    and split faces were merged, the subdivided d20 gave 34 faces at 0.05 mm.)"""
    poly = canonical_order(POLYHEDRA[kind])
    mesh = _write_mesh(poly, tmp_path / "scan.stl", noise=1e-4, subdivide=subdivide, seed=3)
    shape = die_shape(load_die(_die_file(tmp_path, mesh)))
    assert shape.poly.n_faces == poly.n_faces
    _matching(shape.poly, poly, 2.0)


def test_values_round_trip_through_a_mesh_die(tmp_path: Path) -> None:
    """The d20's values given to its STL by face index come back on the same faces, and the
    die shows the same value resting on each face as the analytic d20."""
    d20 = die_shape(load_die("d20"))
    mesh = _write_mesh(d20.poly, tmp_path / "d20.stl")
    shape = die_shape(load_die(_die_file(tmp_path, mesh, list(d20.values))))
    match = _matching(shape.poly, d20.poly, 1e-4)
    assert [shape.values[match[f]] for f in range(20)] == list(d20.values)
    assert [shape.shown_on[match[f]] for f in range(20)] == d20.shown_on


@pytest.mark.parametrize("case,message", [
    ("open", "is not closed (watertight)"),
    ("inverted", "is inside out"),
    ("degenerate", "is degenerate"),
    ("not-utf8", "not UTF-8 text"),
    ("tiny", "a die is 1 mm to 1 m (check units)"),
])
def test_a_broken_mesh_is_one_line_and_exit_2(case: str, message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 17: "a broken mesh (open, inverted, degenerate, non-UTF-8 OBJ) gives one line,
    exit 2" naming the file and the problem."""
    mesh = _mesh(POLYHEDRA["cube"])
    units = "mm"
    if case == "open":
        mesh = trimesh.Trimesh(mesh.vertices, mesh.faces[1:], process=False)
    elif case == "inverted":
        mesh.invert()
    elif case == "degenerate":
        faces = np.vstack([mesh.faces, [[0, 0, 1], [0, 1, 0]]])
        mesh = trimesh.Trimesh(mesh.vertices, faces, process=False)
    elif case == "tiny":
        units = "m"  # a 16 mm die read as 16 m... and as 16 um:
        mesh.apply_scale(1e-6)
    path = tmp_path / "broken.obj"
    mesh.export(path)
    if case == "not-utf8":
        path.write_bytes(path.read_bytes().replace(b"\n", b"\n# \xff\xfe\n", 1))
    die = _die_file(tmp_path, path)
    if units != "mm":
        die.write_text(die.read_text().replace("units: mm", f"units: {units}"))
    assert main(["dice", "check", str(die)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "broken.obj" in err, err


def test_a_d8_loaded_from_stl_rolls_as_the_analytic_d8(tmp_path: Path) -> None:
    """Issue 17: "a mesh of the d8 loaded from STL gives the same outcomes as the analytic d8
    for the same throws", its faces found and given the d8's values by their normals."""
    d8 = load_die("d8")
    mesh = _write_mesh(die_shape(d8).poly, tmp_path / "d8.stl")
    shape = die_shape(d8)
    stl = die_shape(load_die(_die_file(tmp_path, mesh)))
    match = _matching(stl.poly, shape.poly, 1e-4)
    values = [0] * 8
    for f in range(8):
        values[match[f]] = shape.values[f]
    meshed = load_die(_die_file(tmp_path, mesh, values, material="plastic", mass=d8.mass))
    world = World()
    same = 0
    n = 60
    for i in range(n):  # the float32 STL is 0.03 um off; Bullet still ends each throw alike
        throw = random_throw(TableSpec(), 1, np.random.default_rng([17, i]))
        a = world.throw("a", d8, throw).outcome
        world.scene.clear()
        b = world.throw("b", meshed, throw).outcome
        world.scene.clear()
        same += (a.face, a.status) == (b.face, b.status)
    assert same == n, f"{same} of {n}"  # 60 of 60 here


# --- the fairness lab on a d20 --------------------------------------------------------------


def _d20_counts(die: object, throws: int) -> np.ndarray:
    """Face counts (1..20) of the on-table throws of a fairness experiment on felt, run by
    the lab's own simulator."""
    from simulator.experiments.config import parse_experiment
    from simulator.experiments.dispatch import ThrowSimulator

    exp = parse_experiment({
        "name": "d20", "die": die, "surface": "felt", "throws": throws, "seed": 5,
        "throw": {"height": [0.1, 0.3], "speed": [0.2, 1.5], "elevation_deg": [-30, 30],
                  "spin": [0, 25], "area": [0.1, 0.1], "orientation": "uniform"}}, "d20.yaml")
    rows = ThrowSimulator(exp).run(list(range(throws)))
    faces = [r.face for r in rows if r.status == "on_table"]
    assert len(faces) > 0.9 * throws
    return np.bincount(faces, minlength=21)[1:]


def test_a_fair_d20_is_not_flagged() -> None:
    """Issue 17: "a fair d20 is not flagged at a modest number of throws": 1000 throws
    (about 940 on the table, 1.5 s), chi-square against uniform at alpha 0.01."""
    from simulator.experiments.stats import chi_square

    counts = _d20_counts("d20", 1000)
    assert chi_square(counts).p > 0.01, counts


def test_a_d20_with_its_centre_moved_toward_a_face_is_flagged() -> None:
    """Issue 17: "a d20 with its centre of mass moved 10% of its radius toward one face is
    flagged, and the opposite face is the one that comes up most": moved toward 20, the 1
    comes up most (3000 throws, 5 s: at 600 the 1's three neighbours, which also gain, were
    still level with it; p was 1e-9 already)."""
    from simulator.experiments.stats import chi_square

    counts = _d20_counts({"model": "d20", "com_offset": {"toward_face": 20, "fraction_of_r": 0.1}},
                         3000)
    assert chi_square(counts).p < 1e-6, counts
    assert int(np.argmax(counts)) + 1 == 1, counts
    assert int(np.argmin(counts)) + 1 == 20, counts


def test_an_experiment_changes_a_models_pips_and_mass() -> None:
    """An experiment's `{model: ..., field: ...}` may change the mass model's parts: pips
    taken off d6-pips give d6-flush's mass; a mass given replaces the model's density."""
    from simulator.experiments.config import parse_experiment

    def die(raw: object) -> object:
        return parse_experiment({"name": "x", "die": raw, "throws": 1}, "x.yaml").die

    flush = die({"model": "d6-pips", "pips": None})
    assert flush.mass == pytest.approx(load_die("d6-flush").mass, rel=1e-12)  # type: ignore[attr-defined]
    heavy = die({"model": "d20", "mass": 0.006})
    assert heavy.mass == 0.006 and heavy.density is None  # type: ignore[attr-defined]


@pytest.mark.parametrize("change,field", [
    ({"reading": "top_vertex"}, "reading"),  # a cube has no one corner over a face
    ({"mass_model": {"kind": "shell", "wall": 0.009}}, "mass_model"),  # thicker than half
    ({"pips": {"diameter": 0.003, "depth": 0.001}, "values": [1, 2, 3, 4, 5, 7]}, "mass_model"),
])
def test_dice_check_answers_what_a_throw_would(change: dict[str, object], field: str,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A die file is checked whole on loading: a reading its shape cannot have, walls that
    fill it or pips for a value past 6 are one line from `dice check`, not an "ok" that the
    first throw contradicts."""
    import yaml

    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**load_die("d6-flush").to_json(), **change}))
    assert main(["dice", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"bad.yaml: {field}" in err, err
