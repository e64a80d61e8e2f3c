"""tcecd.store"""
