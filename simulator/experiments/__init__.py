"""The throw-fairness lab: experiments as YAML, local and Ray runs into resumable SQLite
results, statistics, plots."""

from simulator.experiments.config import Experiment, load_experiment, parse_experiment
from simulator.experiments.dispatch import RunSummary, run_experiment
from simulator.experiments.store import Store, ThrowRow

__all__ = ["Experiment", "RunSummary", "Store", "ThrowRow", "load_experiment", "parse_experiment",
           "run_experiment"]
