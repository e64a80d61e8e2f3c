"""tcecd.runner"""
