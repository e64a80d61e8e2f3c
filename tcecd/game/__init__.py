"""tcecd.game"""
