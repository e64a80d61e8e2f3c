"""tcecd.config"""
