"""``tcecd web``: a live web page for an event, and TCEC's viewer's socket.io events."""
