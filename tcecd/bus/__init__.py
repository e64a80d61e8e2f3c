"""tcecd.bus"""
