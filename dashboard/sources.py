"""What the user picked as a topology, and the size limits of the views, checked before anything is built.

A `Source` is the hashable key every cached function in `dashboard.data` takes: a core spec
string (``bcube:n=3,k=1``), a teaching example (``example:fig3``), or an uploaded file
(``upload:NAME`` plus the file's bytes). No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.schedule import ScheduleConfig
from core.topology import FAMILIES, TopologyError, keyed_spec, parse_spec, predicted_size, preset

if TYPE_CHECKING:
    from core.replan import LinkEvent

MAX_NODES = 600
"""Largest topology (nodes) the dashboard loads; bigger ones are refused before anything is built."""
DRAW_NODES = 150
"""Topologies up to this many nodes are drawn node by node; bigger ones are shown by link group."""
PLAYER_NETWORK_NODES = 30
"""The schedule player draws each method's network up to this many nodes; above, bars per link group."""
HEAT_LINK_ROWS = 64
"""Heatmaps show one row per directed link up to this many links ("auto"); above, one row per link group."""
MAX_PLAYER_SERVERS = 64
"""Largest number of servers the dashboard schedules (player, compare, debugger)."""
MAX_UPLOAD_BYTES = 5_000_000
"""Largest uploaded topology file read."""
TIME_COLUMNS = (20, 150)
"""On the seconds axis the run is cut into as many equal columns as the longest schedule has rounds, at least
20 and at most 150 (a column of the 820-px figure stays >= 5 px wide)."""

FAMILY_DEFAULTS: dict[str, dict[str, int]] = {
    "bcube": {"n": 3, "k": 1},
    "dcell": {"n": 4, "k": 1},
    "jellyfish": {"switches": 10, "ports": 5, "switch_ports": 4, "seed": 0},
    "fattree": {"k": 4},
}
"""Starting parameters of each family in the sidebar (the paper's smallest configurations)."""

FAMILY_TITLES = {"bcube": "BCube", "dcell": "DCell", "jellyfish": "Jellyfish", "fattree": "Fat-tree"}


class TooBig(TopologyError):
    """A topology too big to draw or animate in the browser (the message says what to change)."""


@dataclass(frozen=True)
class Source:
    """A topology choice: a spec string, an example name, or an upload (name + bytes)."""

    spec: str
    label: str = ""
    data: bytes = b""

    @property
    def name(self) -> str:
        """What to call it on screen."""
        return self.label or self.spec

    @property
    def family(self) -> str:
        """The part of the spec before the colon: bcube, dcell, jellyfish, fattree, example, upload."""
        return self.spec.partition(":")[0].lower()


DEFAULT_SOURCE = Source("bcube:n=3,k=1", "BCube(3,1)")


@dataclass(frozen=True)
class Timeline:
    """What the player plays beside a source, method and ScheduleConfig (whose `size` is the message size):
    the replay mode, a link event (a `core.replan.LinkEvent`, which holds the resolved link ids, bandwidths and
    moment; None: the network as it is) and, on the seconds axis, the edges of the common time columns (s)."""

    mode: str = "async"
    event: LinkEvent | None = None
    edges_s: tuple[float, ...] | None = None

    @property
    def seconds(self) -> bool:
        """True on the seconds axis."""
        return self.edges_s is not None


ROUNDS = Timeline()
"""The round axis, the network as it is."""


def spec_source(text: str) -> Source:
    """The source a spec typed as the CLI takes it names (``bcube:8,2``, ``jellyfish:10,5,4,seed=3``, link options
    such as ``bw=100/25``), parsed by core (`keyed_spec`: one topology has one name, the Table 2 name when it is
    one). Raises TopologyError with one line; a ``file:`` spec is refused: the dashboard reads no file on the server,
    a topology file is uploaded."""
    text = text.strip()
    family, _ = parse_spec(text)
    if family == "file":
        raise TopologyError(f"{text!r}: the dashboard reads no file on the server; upload the file (Upload) instead")
    spec = keyed_spec(text)
    named = {p.spec: p.name for p in preset("table2")}
    return Source(spec, named.get(spec, spec))


def family_params(family: str) -> tuple[str, ...]:
    """Parameter names of a core topology family, required first."""
    fam = FAMILIES[family]
    return fam.required + tuple(fam.optional)


def family_spec(family: str, params: dict[str, int]) -> str:
    """The core spec string of a family and its parameters, e.g. ``bcube:n=3,k=1``."""
    return f"{family}:" + ",".join(f"{k}={int(v)}" for k, v in params.items())


def predicted_nodes(family: str, params: dict[str, int]) -> int | None:
    """Nodes the family would build (core's formulas, nothing built), or None when not sizeable."""
    try:
        size = predicted_size(family_spec(family, params), stop_above=MAX_NODES)
    except TopologyError:
        return None
    return None if size is None else size["nodes"]


def check_drawable(n_nodes: int, what: str, upload: bool = False) -> None:
    """Raise TooBig when a topology has more nodes than the dashboard loads (`upload`: a file, which has no parameters
    to make smaller: the CLI takes it)."""
    if n_nodes > MAX_NODES:
        # predicted sizes are capped at MAX_NODES + 1, so that count means "more than".
        count = f"more than {MAX_NODES}" if n_nodes == MAX_NODES + 1 else str(n_nodes)
        fix = ("The CLI takes it: allreduce-lab schedule file:PATH (the limit is the browser's)." if upload else
               "Pick smaller parameters.")
        raise TooBig(f"{what} has {count} nodes; the dashboard loads at most {MAX_NODES}. {fix}")


def file_stem(source: Source) -> str:
    """A file-name stem for a source: ``bcube_n3_k1``, ``dcell_n6_k1``, or the upload's name, letters only."""
    text = source.spec.partition(":")[2] if source.family == "upload" else source.spec
    text = text.replace(":", "_").replace("=", "").replace(",", "_")
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in text).strip("._")
    return stem or "topology"


DEFAULT_ROUTING = ScheduleConfig().routing
"""The routing a run gets unless one is picked (core's default, the CLI's --routing default)."""


def routing_tag(config: ScheduleConfig) -> str:
    """``-balanced`` or ``-bandwidth`` in a download's name where the run's routing is not the default, else nothing
    (a balanced run's files took the default's names)."""
    return "" if config.routing == DEFAULT_ROUTING else f"-{config.routing}"
