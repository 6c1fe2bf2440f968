"""Telemetry: OpenTelemetry traces (`tracing`) and Prometheus metrics (`metrics`) of every turn,
fed by one callback handler per turn (`observer.TurnObserver`) below the agents."""

from dure.telemetry.observer import TurnObserver, observe_tool
from dure.telemetry.tracing import use_tracer_provider

__all__ = ["TurnObserver", "observe_tool", "use_tracer_provider"]
