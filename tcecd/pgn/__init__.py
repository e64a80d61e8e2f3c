"""tcecd.pgn"""
