"""Live forecasts of an event's final places (docs/forecast.md)."""
