"""``tcecd watch``: a terminal viewer for the live MQTT stream (view-model, rendering)."""
