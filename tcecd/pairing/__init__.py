"""tcecd.pairing"""
